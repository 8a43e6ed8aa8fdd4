import Foundation
import SDUICore
import SDUIFlow
import SDUIStore
import Testing

/// The action table is complete: every row parses, dispatches to itself,
/// has its line in docs/flows.md and its entry in schemas/flow.json, and
/// nothing is listed there without a row.
@Suite struct FlowActionsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func docs() throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/flows.md"), encoding: .utf8)
    }

    static func schema() throws -> JSONValue {
        try JSONValue(json: Data(contentsOf: root.appendingPathComponent("schemas/flow.json")), source: "schemas/flow.json")
    }

    /// The rows of the table under docs/flows.md's "## Actions": name and
    /// the fields column.
    static func docRows(_ text: String) -> [(name: String, fields: String)] {
        guard let section = text.components(separatedBy: "\n## Actions\n").dropFirst().first else { return [] }
        let lines = section.components(separatedBy: "\n")
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| Action | Fields |") }) else { return [] }
        var rows: [(String, String)] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count > 2 else { break }
            rows.append((cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[2]))
        }
        return rows
    }

    /// What is wrong between `rows`, the docs' text and the schema: empty
    /// when they agree.
    static func problems(_ rows: [ActionSpec], docs: String, schema: JSONValue) -> [String] {
        var out: [String] = []
        let names = Set(rows.map(\.name))
        if names.count != rows.count { out.append("a name has two rows") }
        // Docs: one line per row, naming the row's fields; the known list.
        let documented = docRows(docs)
        let docNames = documented.map(\.name)
        for r in rows {
            guard let line = documented.first(where: { $0.name == r.name }) else {
                out.append("\(r.name): no line in docs/flows.md's action table")
                continue
            }
            for f in r.fields where !line.fields.contains("`\(f.name)`") {
                out.append("\(r.name): docs/flows.md does not name the field \(f.name)")
            }
        }
        for n in docNames where !names.contains(n) { out.append("\(n): in docs/flows.md without a row") }
        let known = "(known: \(names.sorted().joined(separator: ", ")))"
        if !docs.contains(known) { out.append("docs/flows.md does not give the known list \(known)") }
        // Schema: the bare names, the type enum, one if/then per row with fields.
        let action = schema["$defs"]?["action"]
        let alone = Set(action?["oneOf"]?[0]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        if alone != Set(rows.filter(\.standalone).map(\.name)) {
            out.append("schemas/flow.json's bare names \(alone.sorted()) are not the standalone rows")
        }
        let object = action?["oneOf"]?[1]
        let types = object?["properties"]?["type"]?["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for n in types where !names.contains(n) { out.append("\(n): in schemas/flow.json without a row") }
        for n in names where !types.contains(n) { out.append("\(n): not in schemas/flow.json's type enum") }
        var entries: [String: JSONValue] = [:]
        for e in object?["allOf"]?.arrayValue ?? [] {
            guard let n = e["if"]?["properties"]?["type"]?["const"]?.stringValue else { continue }
            if !names.contains(n) { out.append("\(n): a schemas/flow.json entry without a row") }
            entries[n] = e["then"]
        }
        for r in rows {
            guard let then = entries[r.name] else {
                if !r.fields.isEmpty { out.append("\(r.name): no entry in schemas/flow.json") }
                continue
            }
            let required = Set(then["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            if required != Set(r.fields.filter(\.required).map(\.name)) {
                out.append("\(r.name): schemas/flow.json requires \(required.sorted())")
            }
            var mentioned = Set(then["properties"]?.objectValue?.keys.map { $0 } ?? [])
            for alt in then["anyOf"]?.arrayValue ?? [] {
                mentioned.formUnion(alt["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
            mentioned.formUnion(required)
            if mentioned != Set(r.fields.map(\.name)) {
                out.append("\(r.name): schemas/flow.json names the fields \(mentioned.sorted())")
            }
        }
        return out
    }

    @Test func everyRowParsesAndDispatchesToItself() throws {
        #expect(FlowActions.names == FlowActions.all.map(\.name).sorted())
        #expect(FlowValidator.actions == Set(FlowActions.names))
        for row in FlowActions.all {
            guard case .success(let action) = FlowAction.parse(row.example) else {
                Issue.record("\(row.name): its example does not parse")
                continue
            }
            #expect(action.name == row.name)
            #expect(FlowActions.spec(named: action.name)?.name == row.name)
            // A bare name is an action exactly when no field is required.
            let bare = FlowAction.parse(.string(row.name))
            if row.standalone {
                #expect((try? bare.get())?.name == row.name, "\(row.name)")
            } else {
                #expect((try? bare.get()) == nil, "\(row.name)")
            }
        }
        guard case .failure(let why) = FlowAction.parse("teleport") else { Issue.record("teleport parsed"); return }
        #expect(why.message == "unknown action \"teleport\" (known: \(FlowActions.names.joined(separator: ", ")))")
    }

    @Test func docsAndSchemaListEveryRow() throws {
        let problems = Self.problems(FlowActions.all, docs: try Self.docs(), schema: try Self.schema())
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The check fails when a docs line, a schema entry or a row is missing.
    @Test func theCheckSeesWhatIsMissing() throws {
        let docs = try Self.docs()
        let schema = try Self.schema()
        let toggleLine = try #require(docs.components(separatedBy: "\n").first { $0.hasPrefix("| `toggle` |") })
        let noLine = Self.problems(FlowActions.all, docs: docs.replacingOccurrences(of: toggleLine + "\n", with: ""),
                                   schema: schema)
        #expect(noLine.contains("toggle: no line in docs/flows.md's action table"), "\(noLine)")
        // The schema without toggle's if/then entry.
        guard case .object(var root) = schema, case .object(var defs)? = root["$defs"],
              case .object(var action)? = defs["action"], case .array(var oneOf)? = action["oneOf"],
              case .object(var object) = oneOf[1], case .array(let allOf)? = object["allOf"] else {
            Issue.record("schemas/flow.json has another shape")
            return
        }
        object["allOf"] = .array(allOf.filter { $0["if"]?["properties"]?["type"]?["const"] != "toggle" })
        oneOf[1] = .object(object)
        action["oneOf"] = .array(oneOf)
        defs["action"] = .object(action)
        root["$defs"] = .object(defs)
        let noEntry = Self.problems(FlowActions.all, docs: docs, schema: .object(root))
        #expect(noEntry == ["toggle: no entry in schemas/flow.json"], "\(noEntry)")
        // A row missing: docs and schema name an action nothing runs.
        let noRow = Self.problems(FlowActions.all.filter { $0.name != "track" }, docs: docs, schema: schema)
        #expect(noRow.contains("track: in docs/flows.md without a row"), "\(noRow)")
        #expect(noRow.contains("track: in schemas/flow.json without a row"), "\(noRow)")
    }

    // MARK: toggle

    static let flow = """
    {"id": "prefs", "version": 1, "start": "a",
     "screens": [{"id": "a", "blocks": [{"type": "header", "title": "Hi"}], "next": [{"to": "b"}]},
                 {"id": "b", "blocks": []}]}
    """

    @Test func toggleFlipsABooleanKey() async throws {
        let j = try FlowFixtures.journal()
        let s = try FlowSession(definition: try FlowFixtures.flow(Self.flow), journal: j,
                                configuration: .init(userID: "u", attributes: ["vip": true]))
        try s.start()
        // Missing becomes true, then it flips.
        #expect(try await s.perform(json: ["type": "toggle", "key": "prefs.dark"]) == .screen("a"))
        #expect(s.store.get("prefs.dark") == .bool(true))
        #expect(try await s.perform(.toggle(key: "prefs.dark")) == .screen("a"))
        #expect(s.store.get("prefs.dark") == .bool(false))
        try await s.perform(json: ["type": "set", "key": "prefs.size", "value": 3])
        // Not a boolean: refused, nothing written, the flow goes on.
        #expect(try await s.perform(json: ["type": "toggle", "key": "prefs.size"])
                == .stayed("toggle: \"prefs.size\" holds a number, not a boolean"))
        #expect(s.store.get("prefs.size") == .integer(3))
        await #expect(throws: SDUIError.self) { try await s.perform(.toggle(key: "prefs.size")) }
        await #expect(throws: SDUIError.self) { try await s.perform(.toggle(key: "attributes.vip")) }
        #expect(s.store.get("attributes.vip") == .bool(true))
        // Refused when read: no key, attributes.
        #expect(try await s.perform(json: "toggle") == .stayed("action: toggle needs \"key\", a key path"))
        #expect(try await s.perform(json: ["type": "toggle", "key": "attributes.vip"])
                == .stayed("action: toggle: \"attributes\" belong to the host"))
        let events = try FlowFixtures.queued(j).map(\.name)
        #expect(events == ["flow_start", "screen_view", "render_error", "render_error", "render_error"])
        // What it wrote survives a restart.
        let again = try FlowSession(definition: try FlowFixtures.flow(Self.flow), journal: j,
                                    configuration: .init(userID: "u"))
        try again.start()
        #expect(again.store.get("prefs.dark") == .bool(false))
    }

    /// A `toggle` of `answers.K` writes K for the validator's read-before-write check.
    @Test func toggleOfAnAnswerCountsAsWritingIt() throws {
        let json = #"""
        {"id":"f","version":1,"start":"a","screens":[
          {"id":"a","blocks":[{"type":"cta","primary":{"label":"x","action":{"type":"toggle","key":"answers.agree"}}}],
           "next":[{"when":"answers.agree == true","to":"b"},{"to":"b"}]},
          {"id":"b","blocks":[]}]}
        """#
        #expect(FlowValidator().validate(try FlowDefinition(json: Data(json.utf8))).isEmpty)
        let without = json.replacingOccurrences(of: #"{"type":"toggle","key":"answers.agree"}"#, with: #""next""#)
        #expect(FlowValidator().validate(try FlowDefinition(json: Data(without.utf8))).contains {
            $0.kind == .keyReadBeforeWritten
        })
    }
}
