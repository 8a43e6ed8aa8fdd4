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
#endif
