import Foundation
import SDUICore
import Testing

/// The one list of event kinds is what the docs, the event schema and the
/// OpenAPI bundle list, in its order, with its name bound.
@Suite struct EventKindTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    static func json(_ path: String) throws -> JSONValue {
        try JSONValue(json: Data(contentsOf: root.appendingPathComponent(path)), source: path)
    }

    /// The event names of docs/flows.md's analytics table, in order (the
    /// `track` row, which names no event, left out).
    static func kinds(inDocs text: String) -> [String] {
        guard let section = text.components(separatedBy: "\n## Analytics\n").dropFirst().first else { return [] }
        let lines = section.components(separatedBy: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| Event | When |") }) else { return [] }
        var out: [String] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| ") else { break }
            let cell = line.split(separator: "|")[0].trimmingCharacters(in: .whitespaces)
            guard cell.hasPrefix("`"), cell.hasSuffix("`") else { continue }
            out.append(String(cell.dropFirst().dropLast()))
        }
        return out
    }

    /// The kinds an event schema's `name` description lists
    /// ("… (…EventKind.swift): a, b, c; or the event of a track action; …").
    static func kinds(inSchema event: JSONValue?) -> [String] {
        guard let text = event?["properties"]?["name"]?["description"]?.stringValue,
              let list = text.components(separatedBy: "EventKind.swift): ").dropFirst().first?
                .components(separatedBy: "; or the event of a track action").first else { return [] }
        return list.components(separatedBy: ", ")
    }

    static let names = EventKind.allCases.map(\.name)

    @Test func theDocsTableListsEveryKind() throws {
        #expect(Self.kinds(inDocs: try Self.read("docs/flows.md")) == Self.names)
    }

    @Test func theSchemaAndTheOpenAPIBundleListEveryKind() throws {
        let schema = try Self.json("schemas/events.json")["$defs"]?["event"]
        #expect(Self.kinds(inSchema: schema) == Self.names)
        #expect(schema?["properties"]?["name"]?["maxLength"] == .int(Int64(EventKind.maxNameLength)))
        let bundled = try Self.json("schemas/openapi.json")["components"]?["schemas"]?["EventBatchEvent"]
        #expect(Self.kinds(inSchema: bundled) == Self.names)
        #expect(bundled?["properties"]?["name"]?["maxLength"] == .int(Int64(EventKind.maxNameLength)))
    }

    /// The flow schema refuses a `track` event named like a kind, or
    /// longer than the bound, as the flow validator does.
    @Test func theFlowSchemaKeepsTrackEventsOffTheKinds() throws {
        let event = try #require(Self.trackEvent(in: try Self.json("schemas/flow.json")), "schemas/flow.json: no track event")
        #expect(event["not"]?["enum"]?.arrayValue?.compactMap(\.stringValue) == Self.names)
        #expect(event["maxLength"] == .int(Int64(EventKind.maxNameLength)))
        let bundled = try #require(Self.trackEvent(in: try Self.json("schemas/openapi.json")), "schemas/openapi.json: no track event")
        #expect(bundled == event)
    }

    /// The schema of a `track` action's `event` in a flow schema: the
    /// `then` of the `if` whose `type` is the const "track".
    static func trackEvent(in schema: JSONValue) -> JSONValue? {
        func walk(_ v: JSONValue) -> JSONValue? {
            if let o = v.objectValue {
                if o["if"]?["properties"]?["type"]?["const"] == .string("track") {
                    return o["then"]?["properties"]?["event"]
                }
                for (_, child) in o { if let found = walk(child) { return found } }
            } else if let a = v.arrayValue {
                for child in a { if let found = walk(child) { return found } }
            }
            return nil
        }
        return walk(schema)
    }

    /// The comparison sees a kind missing from the docs or the schema.
    @Test func aMissingKindIsSeen() throws {
        let docs = try Self.read("docs/flows.md")
        let row = try #require(docs.components(separatedBy: "\n").first { $0.hasPrefix("| `events_dropped` |") })
        #expect(Self.kinds(inDocs: docs.replacingOccurrences(of: row + "\n", with: "")) != Self.names)
        let text = try Self.read("schemas/events.json").replacingOccurrences(of: ", \(Self.names.last!);", with: ";")
        let schema = try JSONValue(json: Data(text.utf8))["$defs"]?["event"]
        #expect(Self.kinds(inSchema: schema) == Array(Self.names.dropLast()))
    }

    @Test func namesAreDistinctAndWithinTheBound() {
        #expect(Set(Self.names).count == Self.names.count)
        #expect(Self.names.allSatisfy { !$0.isEmpty && $0.unicodeScalars.count <= EventKind.maxNameLength })
    }
}
