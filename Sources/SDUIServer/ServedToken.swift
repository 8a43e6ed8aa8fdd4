// ServedToken.swift - a stored token version as the server serves it.
#if Server
import Foundation
import SDUI

/// One stored version, parsed once: what its tree needs and its bytes.
struct ServedToken: Sendable {
    let stored: StoredToken
    /// The highest version of each primitive anywhere in the tree.
    let requirements: [(primitive: String, version: Int)]
    /// Quoted SHA-256 of the token JSON.
    let etag: String
    /// The array element served: the JSON, or a quoted compact JWS.
    let element: [UInt8]

    /// Whether a client with `map` can draw every node of this version.
    func isSupported(by map: PrimitiveMap) -> Bool {
        requirements.allSatisfy { map.supports($0.primitive, version: $0.version) }
    }
}
#endif
