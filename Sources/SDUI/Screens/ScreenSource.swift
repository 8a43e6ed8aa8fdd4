// ScreenSource.swift - where a loaded screen's payload came from.
import SDUICore

/// Where a screen's payload came from.
public enum ScreenSource: String, Sendable, CaseIterable {
    /// The registry sent it (HTTP 200).
    case network
    /// The registry confirmed the cached payload (HTTP 304).
    case revalidated
    /// The registry could not be reached; the payload kept on disk.
    case disk
    /// Offline with nothing cached: the Fallback Pack's screen for the id.
    case fallbackPack = "fallback-pack"
}
