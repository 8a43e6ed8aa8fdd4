// RegistryRecords.swift - registry records (stored tokens and screens) for the registry-side tests.
import Foundation
import SDUIRegistryKit

/// A stored token from fixture JSON.
public func stored(_ id: String, version: Int = 1, primitive: String = "Text", primitiveVersion: Int = 1,
            props: String = #"{"text":"hi"}"#) -> StoredToken {
    StoredToken(id: id, version: version,
                json: Data(Fixtures.token(id, primitive: primitive, version: version,
                                          primitiveVersion: primitiveVersion, props: props).utf8),
                primitiveVersion: primitiveVersion)
}

/// A screen payload with the given token ids.
public func screen(_ id: String, _ tokens: [String], fallback: String? = nil) -> StoredScreen {
    let items = tokens.map { #"{"id":"\#($0)"}"# }.joined(separator: ",")
    return StoredScreen(id: id, payload: Data(#"{"id":"\#(id)","tokens":[\#(items)]}"#.utf8), fallbackScreenID: fallback)
}
