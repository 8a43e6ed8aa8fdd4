// RenderEvent.swift - an analytics event raised while resolving.
import Foundation
import SDUICore

/// An analytics event raised while resolving (seed 000 §9, seed 001).
public struct RenderEvent: Sendable, Hashable, Codable {
    /// `unknown_primitive` or `render_error`.
    public var name: String
    public var token: String?
    public var appVersion: String
    /// The unknown primitive or block type, or what went wrong.
    public var detail: String

    public init(name: String, token: String?, appVersion: String, detail: String) {
        self.name = name
        self.token = token
        self.appVersion = appVersion
        self.detail = detail
    }
}
