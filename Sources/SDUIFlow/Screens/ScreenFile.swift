// ScreenFile.swift - any screen file (a token screen, a block screen or a
// normalized payload) as the items a screen shows: the one place that tells
// the three formats apart and reads each.
import Foundation
import SDUI
import SDUICore

extension ScreenFormat {
    /// The items of the screen in `data`, whichever of the three formats it
    /// is (``probe(_:source:)`` tells them apart with one parse, which the
    /// block and normalized formats decode from).
    ///
    /// - Throws: `SDUIError` naming `source`: the JSON's, or the format's rules.
    public static func items(_ data: Data, source: String) throws -> ScreenItems {
        let (format, probe) = try probe(data, source: source)
        switch format {
        case .normalizedPayload: return try ScreenModel(value: probe, source: source).screenItems
        case .blockScreen: return try BlockScreen(value: probe, source: source).screenItems
        case .tokenPayload: return try ScreenPayload(json: data, source: source).screenItems
        }
    }
}
