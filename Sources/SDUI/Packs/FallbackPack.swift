// FallbackPack.swift - the pack of critical screens shown offline.
import Foundation
import SDUICore

/// A Fallback Pack: a Core-Token Pack that also carries whole screens for
/// critical flows (checkout, login).  When a screen cannot be drawn because
/// the device is offline and a token is missing, the resolver switches the
/// whole screen to the one here whose `fallbackFor` names it.
///
/// It is an ordinary pack file (schemas/pack.json) with one more top-level
/// member, which the C core's scan ignores:
///
///     {"formatVersion": 1, "tokens": [...],
///      "screens": [{"id": "checkout_offline", "fallbackFor": "checkout", "tokens": [...]}]}
///
/// Every token those screens use should be in the same pack, so they draw
/// with no network at all.
public final class FallbackPack: Sendable {
    /// The underlying pack: the screens' tokens, looked up like any core pack's.
    public let pack: CorePack
    /// Fallback screens by the id of the screen they stand in for.
    public let screens: [String: ScreenPayload]

    /// Opens a Fallback Pack; errors name the file and the screen at fault.
    public convenience init(contentsOf url: URL, limits: PackLimits = .default) throws {
        try self.init(pack: CorePack(contentsOf: url, limits: limits))
    }

    /// Reads the screens of an opened pack.
    public init(pack: CorePack) throws {
        // The "screens" member's bytes, recorded by the C scan at open: no
        // token is decoded, and each screen is decoded once, from its own bytes.
        let list = try pack.member("screens") ?? Data("[]".utf8)
        let elements: [JSONArrayElement]
        do {
            elements = try JSONArrayElements.split(list, maxDepth: Int.max, maxElements: 100_000, source: pack.source)
        } catch {
            throw SDUIError(.schema, "\"screens\" is not a list of screens", input: pack.source)
        }
        var screens: [String: ScreenPayload] = [:]
        for (i, e) in elements.enumerated() {
            let screen = try ScreenPayload(json: list.subdata(in: e.range), source: "\(pack.source): screens[\(i)]")
            guard let target = screen.fallbackFor else {
                throw SDUIError(.schema, "screens[\(i)] (\(screen.id)) has no \"fallbackFor\"", input: pack.source)
            }
            guard screens[target] == nil else {
                throw SDUIError(.schema, "two fallback screens for \"\(target)\"", input: pack.source)
            }
            screens[target] = screen
        }
        self.pack = pack
        self.screens = screens
    }

    /// The fallback screen for `screenID`, if the pack has one.
    public func screen(for screenID: String) -> ScreenPayload? { screens[screenID] }
}
