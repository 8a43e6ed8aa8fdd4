// RenderEvent.swift - an analytics event raised while resolving.
import Foundation
import SDUICore

/// An analytics event raised while resolving.
public struct RenderEvent: Sendable, Hashable, Codable {
    /// `unknown_primitive` or `render_error`.
    public var name: String
    /// The token the event is about, or `block[i]` for a block.
    public var token: String?
    /// The app version, from ``RenderContext/appVersion``.
    public var appVersion: String
    /// The unknown primitive or block type, or what went wrong.
    public var detail: String

    /// An event from its parts.
    public init(name: String, token: String?, appVersion: String, detail: String) {
        self.name = name
        self.token = token
        self.appVersion = appVersion
        self.detail = detail
    }
}
