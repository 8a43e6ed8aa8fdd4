// StoredScreen.swift - a screen as a registry stores it.
import Foundation

/// A screen: its payload and the screen to fall back to.
public struct StoredScreen: Sendable, Equatable {
    /// The screen's id.
    public var id: String
    /// The ScreenPayload JSON, served as it is.
    public var payload: Data
    /// Named in the 409 answer when the client cannot draw this screen.
    public var fallbackScreenID: String?
    /// The registry sequence number of the write that stored this screen;
    /// assigned by the store (0 in a record not yet written).
    public var seq: Int64

    /// A screen record.  Leave `seq` at 0 when publishing: the store assigns
    /// it.
    public init(id: String, payload: Data, fallbackScreenID: String? = nil, seq: Int64 = 0) {
        self.id = id
        self.payload = payload
        self.fallbackScreenID = fallbackScreenID
        self.seq = seq
    }
}
