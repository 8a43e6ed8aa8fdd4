// PrimitiveSpecTests.swift - the primitive table: the contract, the prop rules and the preview all come from it.
import Foundation
@testable import SDUI
import SDUICore
import SDUITestSupport
import Testing

@Suite struct PrimitiveSpecTests {
    /// The built-in contract as it stood before the table, row for row, so
    /// a lost or changed row fails here.
    static let contractBeforeTheTable =
        "Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1,Button@1,TextField@1,Slider@1,Choice@1,Toggle@1"

    /// The prop rules as they stood before the table, one line per primitive.
    static let rulesBeforeTheTable = [
        "Column: action=action, alignment=string, background=color, cornerRadius=length, padding=length, spacing=length, visible=bool",
        "Row: action=action, alignment=string, background=color, cornerRadius=length, padding=length, spacing=length, visible=bool",
        "Text: action=action, color=color, maxLines=number, padding=length, style=typography, text=required string, visible=bool",
        "AsyncImage: aspectRatio=number, cornerRadius=length, height=length, placeholderColor=color, url=required string, visible=bool, width=length",
        "Spacer: background=color, flexible=bool, size=length",
        "Button: action=action, background=color, color=color, cornerRadius=length, height=length, label=required string, padding=length, style=string, visible=bool",
        "TextField: key=required string, label=string, padding=length, placeholder=string, secure=bool",
        "Slider: key=required string, max=required number, min=required number, padding=length, step=number, tint=color",
        "Choice: key=required string, mode=string, options=required array, spacing=length",
        "Toggle: key=required string, tint=color, value=bool",
    ]

    /// One line per primitive of `map`: its prop rules sorted by name.
    static func ruleLines(_ map: PrimitiveMap) -> [String] {
        map.entries.map { entry in
            let rules = map.propRules(of: entry.name).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(entry.name): " + rules.joined(separator: ", ")
        }
    }

    /// The rows added since the table, after those it started with.
    static let contractAdded = ",Badge@1"
    static let rulesAdded = [
        "Badge: background=color, color=color, cornerRadius=length, padding=length, text=required string, visible=bool",
    ]

    /// Optional props added to rows since, at the same version (an app that
    /// does not know one ignores it): the inputs' `required`, which a
    /// screen session reads, the toggle block's label and padding, and a
    /// Text's `fixedSize` (an icon keeping its size in a row).
    static let propsAdded: [String: [String]] = [
        "TextField": ["required=bool"], "Slider": ["required=bool"], "Choice": ["required=bool"],
        "Toggle": ["label=string", "padding=length", "required=bool"], "Text": ["fixedSize=bool"],
    ]

    /// `lines` with ``propsAdded`` merged in, each line's props sorted.
    static func withPropsAdded(_ lines: [String]) -> [String] {
        lines.map { line in
            let parts = line.components(separatedBy: ": ")
            guard parts.count == 2, let added = propsAdded[parts[0]] else { return line }
            return parts[0] + ": " + (parts[1].components(separatedBy: ", ") + added).sorted().joined(separator: ", ")
        }
    }

    /// The contract derived from the table is the one written out before
    /// the table, row for row, rule for rule, then the rows added since.
    @Test func theBuiltInContractIsTheOneBeforeTheTable() {
        #expect(PrimitiveMap.builtIn.headerValue == Self.contractBeforeTheTable + Self.contractAdded)
        #expect(Self.ruleLines(.builtIn) == Self.withPropsAdded(Self.rulesBeforeTheTable) + Self.rulesAdded)
    }

    /// The map, the rules and the lookup all read the same rows.
    @Test func theContractAndTheRulesDeriveFromTheRows() throws {
        let rows = PrimitiveSpec.builtIn
        #expect(PrimitiveMap.builtIn.entries.map(\.name) == rows.map(\.name))
        #expect(PrimitiveMap.builtIn.entries.map(\.version) == rows.map(\.version))
        #expect(PropRule.builtIn.count == rows.count)
        for row in rows {
            #expect(PrimitiveMap.builtIn.propRules(of: row.name) == row.props, "\(row.name)")
            #expect(PropRule.builtIn[row.name] == row.props, "\(row.name)")
            #expect(PrimitiveSpec.named(row.name)?.name == row.name)
        }
        #expect(PrimitiveSpec.named("Gauge") == nil)
        #expect(try PrimitiveMap(specs: rows) == PrimitiveMap.builtIn)
    }

    /// Names are unique and valid `X-Primitives` names; versions are 1 or more.
    @Test func namesAreUniqueAndVersionsPositive() throws {
        let names = PrimitiveSpec.builtIn.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        #expect(PrimitiveSpec.builtIn.allSatisfy { $0.version >= 1 })
        for name in names { _ = try PrimitiveMap([(name, 1)]) }   // throws on a malformed name
        // A repeated row is refused when the map is made from the table.
        let twice = [PrimitiveSpec.builtIn[0], PrimitiveSpec.builtIn[0]]
        #expect(throws: SDUIError.self) { _ = try PrimitiveMap(specs: twice) }
    }

    /// Each row's preview is its own drawing function: a node of every
    /// built-in primitive gets its own class, never the plain column that
    /// stands for a primitive without a row.
    @Test func everyRowHasItsOwnPreview() throws {
        let app = RenderNode(primitive: "Gauge", version: 1, props: [:], token: "app")
        let nodes = PrimitiveSpec.builtIn.map {
            RenderNode(primitive: $0.name, version: $0.version, props: [:], token: "row-\($0.name)")
        }
        let root = RenderNode(primitive: "Column", version: 3, props: [:], children: nodes + [app], token: "root")
        let html = HTMLPreview.render(RenderTree(screen: "s", renderedScreen: "s", theme: "t", themeSource: .sdk,
                                                 mode: .light, root: root, issues: [], events: []))
        /// The class attribute of the element carrying data-token `token`.
        func classes(_ token: String) throws -> [Substring] {
            let at = try #require(html.range(of: "data-token=\"\(token)\""), "no element for \(token)")
            let open = try #require(html[..<at.lowerBound].range(of: "<", options: .backwards))
            let tag = html[open.lowerBound..<at.lowerBound]
            let cls = try #require(tag.range(of: "class=\""))
            return tag[cls.upperBound...].prefix { $0 != "\"" }.split(separator: " ")
        }
        #expect(try classes("app").contains("sdui-unknown"))
        for row in PrimitiveSpec.builtIn {
            let found = try classes("row-\(row.name)")
            #expect(found.first.map(String.init) == "sdui-\(row.name.lowercased())", "\(row.name): \(found)")
            #expect(!found.contains("sdui-unknown"), "\(row.name) is drawn as an unknown primitive")
        }
    }

    /// A row's theme-name hints reach the plan: the prop's bare string is
    /// planned as a name, and only for that primitive; the rule of each
    /// such prop is of the kind the name resolves to.
    @Test func themeNameHintsReachThePlan() {
        for row in PrimitiveSpec.builtIn {
            for (prop, names) in row.themeNames {
                let kind: PropRule.Kind = names == .spacing ? .length : .typography
                #expect(row.props[prop]?.kind == kind, "\(row.name).\(prop)")
                let planned = NodePlan(primitive: row.name, version: 1, props: .object([prop: "md"]))
                switch (names, planned.props.dynamic.first?.value) {
                case (.spacing, .spacing("md")?), (.typography, .typography("md")?): break
                default: Issue.record("\(row.name).\(prop) was not planned as a theme name")
                }
                let elsewhere = NodePlan(primitive: "Gauge", version: 1, props: .object([prop: "md"]))
                #expect(elsewhere.props.literals[prop] == "md" || NodePlan.isSpacingKey(prop), "\(prop) on an app primitive")
            }
        }
        #expect(PrimitiveSpec.named("Spacer")?.themeNames["size"] == .spacing)
        #expect(PrimitiveSpec.named("Text")?.themeNames["style"] == .typography)
    }

    // MARK: schemas/primitives.json

    /// The schema of the built-in primitives.
    static func schema() throws -> JSONValue {
        let url = Fixtures.repositoryRoot.appendingPathComponent("schemas/primitives.json")
        return try JSONValue(json: Data(contentsOf: url), source: "schemas/primitives.json")
    }

    /// Every row has an entry in schemas/primitives.json and every entry a
    /// row; the schema applies each entry to nodes of its primitive; and
    /// each entry lists the row's props, the required ones required, each
    /// of the rule's kind.
    @Test func theSchemaHasAnEntryPerRowAndNoOther() throws {
        let schema = try Self.schema()
        let defs = try #require(schema["$defs"]?.objectValue)
        let kinds = Set(PropRule.Kind.allCases.map(\.rawValue))
        #expect(kinds.isSubset(of: Set(defs.keys)), "a prop kind without a schema")
        let entries = Set(defs.keys).subtracting(kinds)
        let rows = PrimitiveSpec.builtIn.map(\.name)
        #expect(entries == Set(rows), "schema entries without a row: \(entries.subtracting(rows).sorted()); rows without an entry: \(Set(rows).subtracting(entries).sorted())")
        let applied = (schema["allOf"]?.arrayValue ?? []).compactMap { $0["if"]?["properties"]?["primitive"]?["const"]?.stringValue }
        #expect(applied == rows, "the schema applies its entries to these primitives")
        for (i, item) in (schema["allOf"]?.arrayValue ?? []).enumerated() {
            let name = applied.indices.contains(i) ? applied[i] : ""
            #expect(item["then"]?["properties"]?["props"]?["$ref"]?.stringValue == "#/$defs/\(name)")
        }
        for row in PrimitiveSpec.builtIn {
            let entry = try #require(defs[row.name], "no schema entry for \(row.name)")
            let properties = entry["properties"]?.objectValue ?? [:]
            #expect(Set(properties.keys) == Set(row.props.keys), "\(row.name)")
            let required = Set((entry["required"]?.arrayValue ?? []).compactMap(\.stringValue))
            #expect(required == Set(row.props.filter(\.value.required).keys), "\(row.name)")
            for (prop, rule) in row.props {
                #expect(properties[prop]?["$ref"]?.stringValue == "#/$defs/\(rule.kind.rawValue)", "\(row.name).\(prop)")
            }
        }
    }

    /// The render-tree schema applies this one to every node.
    @Test func theRenderTreeSchemaAppliesIt() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("schemas/render-tree.json")
        let tree = try JSONValue(json: Data(contentsOf: url), source: "schemas/render-tree.json")
        #expect(tree["$defs"]?["node"]?["$ref"] == "primitives.json")
        #expect(try Self.schema()["$id"] == "https://sdui.example.com/schemas/primitives.json")
    }
}
