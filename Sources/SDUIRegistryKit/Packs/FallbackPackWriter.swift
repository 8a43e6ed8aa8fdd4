// FallbackPackWriter.swift - writes the Fallback Pack of critical screens.
import Foundation
import SDUI

extension CorePackPlanner {
    /// A Fallback Pack (a pack with "screens", schemas/pack.json): for each
    /// critical screen, its fallback screen (or the screen itself when it
    /// names none) with `fallbackFor` set, plus every token those screens
    /// use; and `flows` (as stored) with the `themes` they use (theme
    /// JSON), for a flow's first run offline; and `experiments` (as
    /// stored), so an app that never reached the registry assigns as it would.
    public func fallbackPack(critical: [String], screens: [String: StoredScreen],
                             tokens: (String) -> PackCandidate?,
                             flows: [StoredFlow] = [], themes: [Data] = [],
                             experiments: [StoredExperiment] = [], strings: Data? = nil) throws -> Data {
        var builder = CorePackBuilder(limits: limits)
        if let strings = strings ?? self.strings { builder.members = Data(#""strings":"#.utf8) + strings + Data(",".utf8) }
        var added = Set<String>()
        var embedded: [JSONValue] = []
        for id in critical {
            guard let screen = screens[id] else { throw RegistryError(.notFound, "no screen \"\(id)\"", subject: id) }
            let shown = screen.fallbackScreenID.flatMap { screens[$0] } ?? screen
            guard case .object(var doc) = try JSONDecoder().decode(JSONValue.self, from: shown.payload) else {
                throw RegistryError(.invalid, "screen is not an object", subject: shown.id)
            }
            doc["fallbackFor"] = .string(id)
            doc["fallbackScreenId"] = nil
            embedded.append(.object(doc))
            let payload = try ScreenPayload(json: shown.payload, source: shown.id)
            for item in payload.tokens where added.insert(item.id).inserted {
                guard let t = tokens(item.id) else {
                    throw RegistryError(.notFound, "screen \(shown.id) uses \(item.id), which no version serves", subject: item.id)
                }
                _ = try builder.add(json: t.json, source: t.id)
            }
        }
        // The pack document with the "screens" member the C core skips.
        var doc = builder.document()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let screensJSON = try encoder.encode(embedded)
        guard doc.first == UInt8(ascii: "{") else { throw RegistryError(.invalid, "unexpected pack document") }
        var members = Data("\"screens\":".utf8) + screensJSON + Data(",".utf8)
        // Flows and themes as stored: each is JSON the registry checked.
        for (name, items) in [("flows", flows.map(\.json)), ("themes", themes), ("experiments", experiments.map(\.json))]
        where !items.isEmpty {
            members += Data("\"\(name)\":[".utf8) + Data(items.joined(separator: Data(",".utf8))) + Data("],".utf8)
        }
        doc.insert(contentsOf: members, at: doc.startIndex + 1)
        let pack = try CorePackBuilder.gzip(doc, level: gzipLevel)
        do {
            try CorePackBuilder.verify(pack, tokens: builder.ids.count, limits: limits, source: "the Fallback Pack")
            _ = try FallbackPack(pack: CorePack(data: pack, name: "the Fallback Pack", limits: limits))
        } catch let e as SDUIError {
            throw RegistryError(.gate, e.message)
        }
        return pack
    }
}
