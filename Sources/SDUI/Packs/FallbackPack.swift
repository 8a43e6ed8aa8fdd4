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
///
/// It may also carry whole flows, for a first run with no network (`sdui
/// pack build --fallback-flows`): a `"flows"` member, a list of flow
/// definitions (schemas/flow.json), and a `"themes"` member, the themes
/// they use (schemas/theme.json).  `FlowLoader` starts a flow from here when
/// the registry cannot be reached and it has never kept one.
///
/// It may carry experiment definitions (`"experiments"`, a list of
/// schemas/experiment.json documents), so an app that has never reached the
/// registry assigns users as the registry would (``ExperimentSource``).
public final class FallbackPack: Sendable {
    /// The underlying pack: the screens' tokens, looked up like any core pack's.
    public let pack: CorePack
    /// Fallback screens by the id of the screen they stand in for.
    public let screens: [String: ScreenPayload]
    /// Flow definitions by id, as JSON (the flow module decodes them).
    public let flows: [String: JSONValue]
    /// The themes the flows use.
    public let themes: [Theme]
    /// Experiment definitions, in the pack's order.
    public let experiments: [Experiment]

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
        var flows: [String: JSONValue] = [:]
        for (i, value) in try Self.list(pack, "flows").enumerated() {
            guard let id = value["id"]?.stringValue, !id.isEmpty else {
                throw SDUIError(.schema, "flows[\(i)] has no string \"id\"", input: pack.source)
            }
            guard flows[id] == nil else { throw SDUIError(.schema, "two flows \"\(id)\"", input: pack.source) }
            flows[id] = value
        }
        self.themes = try Self.list(pack, "themes").enumerated().map { i, value in
            try Theme(value: value, source: "\(pack.source): themes[\(i)]")
        }
        self.experiments = try ExperimentList(values: try Self.list(pack, "experiments"), source: pack.source).experiments
        self.pack = pack
        self.screens = screens
        self.flows = flows
    }

    /// The elements of the pack's member `name`, a list (empty when absent).
    private static func list(_ pack: CorePack, _ name: String) throws -> [JSONValue] {
        guard let bytes = try pack.member(name) else { return [] }
        guard let items = try JSONValue(json: bytes, source: "\(pack.source): \(name)").arrayValue else {
            throw SDUIError(.schema, "\"\(name)\" is not a list", input: pack.source)
        }
        return items
    }

    /// The flow `id`'s definition, as JSON, if the pack carries it.
    public func flow(_ id: String) -> JSONValue? { flows[id] }

    /// The fallback screen for `screenID`, if the pack has one.
    public func screen(for screenID: String) -> ScreenPayload? { screens[screenID] }
}
