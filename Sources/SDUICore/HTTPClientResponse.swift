// HTTPClientResponse.swift - an HTTP answer: status, headers, body.
import Foundation

/// One HTTP answer: status, header fields and the whole body (which the
/// client has already checked against its size limit).
public struct HTTPClientResponse: Sendable {
    /// The HTTP status code, whatever it is (the client does not turn 4xx or
    /// 5xx into errors).
    public var status: Int
    /// Header fields as the server sent them (look them up with ``header(_:)``).
    public var headers: [String: String]
    /// The whole body; never longer than the client's `maxBodyBytes`.
    public var body: Data

    /// The value of a header field, by case-insensitive name.
    public func header(_ name: String) -> String? {
        if let v = headers[name] { return v }
        let lower = name.lowercased()
        return headers.first { $0.key.lowercased() == lower }?.value
    }
}
