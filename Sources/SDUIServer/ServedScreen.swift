// ServedScreen.swift - a stored screen as the server serves it.
#if Server
import Foundation
import SDUI

/// A screen with the ids it uses and its ETag.
struct ServedScreen: Sendable {
    let stored: StoredScreen
    let tokenIDs: [String]
    let etag: String
}

/// A flow with its ETag and the primitives its blocks draw with.
struct ServedFlow: Sendable {
    let stored: StoredFlow
    let etag: String
    /// Each primitive the flow's blocks use, with the highest version needed.
    let requirements: [(String, Int)]
}
#endif
