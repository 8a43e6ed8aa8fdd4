// RenderCommand.swift - `sdui render`: a screen as a JSON render tree or an HTML preview.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore

package struct RenderCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Resolve a screen into a render tree (JSON) or an HTML preview.",
        discussion: """
        SCREEN is a ScreenPayload (token ids with bindings; needs --pack), a block screen \
        ("blocks"), or a normalized payload ("screenName", "templates", "components", \
        "body"; each template lays out its components as blocks). Themes come from --theme files; the screen's themeId wins \
        when one of them has it, then --flow-theme (default: the first --theme), then the \
        SDK fallback theme. Every degradation is listed on stderr; the exit status is 0 \
        unless --strict is given and something degraded. A screen that asks for more than \
        20,000 nodes or 8 MiB (a component or token listed many times) is drawn up to that \
        bound, then a placeholder and a "limit" warning naming the screen and the item.

        Examples:
          sdui render Examples/screens/checkout.json --pack Examples/core-pack.json.gz
          sdui render Examples/payloads/home_normalized.json --format html --out home.html
        """)

    package init() {}

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, html }

    @Argument(help: "The screen file (- for standard input).")
    var screen: String

    @OptionGroup var output: OutputOptions

    @Option(help: "The Core-Token Pack the screen's tokens come from.")
    var pack: String?

    @Option(help: "A theme file: schemas/theme.json, the flat block-theme form, or W3C Design Tokens (repeatable).")
    var theme: [String] = []

    @Option(name: .customLong("flow-theme"), help: "The flow's default theme id.")
    var flowTheme: String?

    @Option(help: "light or dark.")
    var mode: ThemeMode = .light

    @Option(name: .customLong("text-scale"), help: "Accessibility scale for typography, 0.5 to 4.")
    var textScale: Double = 1

    @Option(name: .customLong("spacing-scale"), help: "Accessibility scale for spacing, 0.5 to 4 (kept on the 4 pt grid).")
    var spacingScale: Double = 1

    @Option(help: "A host binding, key.path=value; the value is JSON when it parses, else text (repeatable).")
    var bind: [String] = []

    @Option(help: "Scenario data: a JSON file whose top-level object the screen's {{…}} bindings (after --bind) and @{…} expressions read.")
    var store: String?

    @Option(help: "X-Primitives versions over the built-ins: each listed primitive gets that version.")
    var primitives: String?

    @Option(name: .customLong("fallback-pack"), help: "A Fallback Pack of screens for offline use.")
    var fallbackPack: String?

    @Option(help: "Treat these token ids as offline misses (comma-separated), to preview skeletons and fallbacks.")
    var offline: String?

    @Option(help: "json or html.")
    var format: Format = .json

    @Option(help: "Write here instead of stdout.")
    var out: String?

    @Flag(help: "Exit with status 1 when anything degraded.")
    var strict = false

    @Flag(help: "With --format html: outline each node the accessibility lint finds at fault, numbered, and list the findings.")
    var lint = false

    @Option(help: "The platform whose touch targets --lint checks: ios or android.")
    var platform: AccessibilityPlatform = .ios

    @Option(help: "The locale to render in (e.g. de-CH, ar): @string.… texts, plurals, numbers and the direction.")
    var locale: String?

    @Option(help: "A folder of string catalogs, <locale>.json each (default: the pack's strings, if any).")
    var strings: String?

    @Option(name: .customLong("default-locale"), help: "The default locale of --strings (default en).")
    var defaultLocale = "en"

    /// `sdui bench start-up`: print the milliseconds this command's own work
    /// took (from here to the output written) on stderr, as `work-ms N`, and
    /// those from `main` to here (parsing the command line) as `parse-ms N`.
    @Flag(name: .customLong("report-work"), help: .hidden)
    var reportWork = false

    /// `--lint` draws on the HTML preview only.
    package func validate() throws {
        if lint && format != .html { throw ValidationError("--lint needs --format html") }
    }

    package func run() throws {
        let start = ContinuousClock.now
        defer {
            if reportWork {
                func ms(_ d: Duration) -> Double {
                    Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
                }
                let parse = CommandRunner.started.map { ms(start - $0) } ?? 0
                FileHandle.standardError.write(Data(String(format: "work-ms %.3f\nparse-ms %.3f\n",
                                                           ms(ContinuousClock.now - start), parse).utf8))
            }
        }
        let tree = try reportingErrors { try render() }
        for issue in tree.issues {
            FileHandle.standardError.write(Data("warning: \(issue)\n".utf8))
        }
        let data: Data
        switch format {
        case .json: data = try tree.jsonData(pretty: true) + Data("\n".utf8)
        case .html where lint:
            let findings = AccessibilityLint(platform: platform).findings(in: tree)
            data = Data(HTMLPreview.render(tree, title: tree.renderedScreen, lint: findings).utf8)
        case .html: data = Data(HTMLPreview.render(tree, title: tree.renderedScreen).utf8)
        }
        if let out {
            try reportingErrors { try writeFile(data, to: out) }
        } else {
            FileHandle.standardOutput.write(data)
        }
        if strict && !tree.issues.isEmpty { throw ExitCode(1) }
    }

    /// Loads the inputs and resolves the screen.
    private func render() throws -> RenderTree {
        for (option, scale) in [("--text-scale", textScale), ("--spacing-scale", spacingScale)]
        where !ResolvedTheme.scaleRange.contains(scale) {
            throw SDUIError(.argument, "must be from \(ResolvedTheme.scaleRange.lowerBound) to "
                            + "\(ResolvedTheme.scaleRange.upperBound), not \(scale)", input: option)
        }
        var context = RenderContext()
        let themes = try theme.map { try Theme(contentsOf: URL(fileURLWithPath: $0)) }
        context.themes = ThemeCatalog(themes)
        context.flowThemeID = flowTheme ?? themes.first?.id
        context.mode = mode
        context.textScale = textScale
        context.spacingScale = spacingScale
        context.hostBindings = try Self.bindings(bind)
        if let store { context.store = try Self.scenarioData(store) }
        if let primitives { context.primitives = try PrimitiveMap.builtIn.merging(PrimitiveMap(parsing: primitives)) }
        if let fallbackPack { context.fallbackPack = try FallbackPack(contentsOf: URL(fileURLWithPath: fallbackPack)) }
        let core = try pack.map { try CorePack(contentsOf: URL(fileURLWithPath: $0)) }
        if let strings {
            context.strings = try StringFolder.catalog(URL(fileURLWithPath: strings), defaultLocale: defaultLocale)
        } else {
            context.strings = try core?.strings()
        }
        context.locale = try locale.map { try LocaleTag($0).identifier }
        let resolver = ScreenResolver(context)

        let data = try readFile(screen, limit: FileInput.documentLimit)
        // One parse with the core's scanner tells the formats apart
        // (ScreenFormat) and is the value the block and normalized formats
        // decode from (a second parse of a large payload cost more than the
        // bounded render).
        let (format, probe) = try ScreenFormat.probe(data, source: inputName(screen))
        switch format {
        case .normalizedPayload:
            return resolver.resolve(try ScreenModel(value: probe, source: inputName(screen)))
        case .blockScreen:
            return resolver.resolve(try BlockScreen(value: probe, source: inputName(screen)))
        case .tokenPayload:
            break
        }
        let payload = try ScreenPayload(json: data, source: inputName(screen))
        guard let core else {
            throw SDUIError(.argument, "a token screen needs --pack", input: screen)
        }
        let offlineIDs = Set((offline ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        return resolver.resolve(payload, pack: core, offline: offlineIDs)
    }

    /// The scenario data in `path` (a JSON object) as an in-memory store.
    static func scenarioData(_ path: String) throws -> ScenarioStore {
        let value = try JSONValue(json: try readFile(path, limit: FileInput.documentLimit), source: inputName(path))
        guard case .object(let members) = value else {
            throw SDUIError(.schema, "the store file must hold a JSON object", input: path)
        }
        let store = DefaultStore(appID: "sdui.render").store(.appMemory)
        store.replaceAll(with: members.mapValues(StoreValue.init))
        return store
    }

    /// `a.b=value` pairs as a nested object.
    static func bindings(_ pairs: [String]) throws -> [String: JSONValue] {
        var root: JSONValue = .object([:])
        for pair in pairs {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw SDUIError(.argument, "expected key.path=value", input: "--bind \(pair)")
            }
            let keys = pair[..<eq].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard keys.allSatisfy({ !$0.isEmpty }) else {
                throw SDUIError(.argument, "empty key in \"\(pair[..<eq])\"", input: "--bind \(pair)")
            }
            let text = String(pair[pair.index(after: eq)...])
            let value = (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))) ?? .string(text)
            root = set(root, keys[...], value)
        }
        return root.objectValue ?? [:]
    }

    private static func set(_ node: JSONValue, _ keys: ArraySlice<String>, _ value: JSONValue) -> JSONValue {
        guard let key = keys.first else { return value }
        var o = node.objectValue ?? [:]
        o[key] = set(o[key] ?? .object([:]), keys.dropFirst(), value)
        return .object(o)
    }
}

extension ThemeMode: ExpressibleByArgument {}
#endif
