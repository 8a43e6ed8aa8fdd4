// A11yCommand.swift - `sdui a11y lint`: the accessibility lint over a
// screen, a flow or a folder in the Examples/ layout.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore
import SDUIFlow

package struct A11yCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "a11y",
        abstract: "Check screens for accessibility defects.",
        discussion: """
        Examples:
          sdui a11y lint Examples
          sdui a11y lint Tests/A11yFixtures/broken_paywall --json
        """,
        subcommands: [Lint.self])

    package init() {}

    package struct Lint: AsyncParsableCommand {
        package static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Lint screens: labels, text alternatives, touch targets, contrast, focus order.",
            discussion: """
            SCREEN is a screen file (token payload, block screen or normalized payload), FLOW a \
            flow definition (each of its screens), DIR a folder in the Examples/ layout (every \
            screen of screens/, blocks/ and payloads/, and every flow of flows/). Tokens come \
            from --pack, else --tokens, else DIR/tokens (or the tokens/ folder beside the file). \
            Each screen is resolved as an app draws it (themes from the folder's themes/), then \
            checked: label (WCAG 4.1.2), image-alt (1.1.1), touch-target (2.5.5: 44 pt on iOS, \
            48 dp on Android), contrast (1.4.3, on each text and the background drawn behind it) \
            focus-order (2.4.3, a warning), motion (2.3.3) and motion-timing (a warning). With \
            --layout, each screen is also laid out by headless Chromium 320 px wide at text scale \
            3.1, and text that is clipped, runs off the screen or overlaps other text is found \
            (text-clip, 1.4.4). Exits 1 when any error is found, 0 otherwise.

            Examples:
              sdui a11y lint Examples
              sdui a11y lint Examples/screens/checkout.json --platform android --json
              sdui a11y lint Examples --layout
            """)

        @Argument(help: "A screen file, a flow file or a folder in the Examples/ layout.")
        var target: String

        @Option(help: "A folder of token files (default: the folder's tokens/).")
        var tokens: String?

        @Option(help: "A Core-Token Pack the tokens come from.")
        var pack: String?

        @Option(help: "ios (44 pt targets) or android (48 dp).")
        var platform: AccessibilityPlatform = .ios

        @Flag(help: "Also lay each screen out in headless Chromium, 320 px wide at text scale 3.1, for clipped text.")
        var layout = false

        /// `--json`: `{"findings": [{rule, severity, screen, node, token, message, wcag}…]}`.
        @OptionGroup var output: OutputOptions

        package init() {}

        package func validate() throws {
            if tokens != nil && pack != nil { throw ValidationError("give --tokens or --pack, not both") }
        }

        package func run() async throws {
            try await reportingErrors {
                let screens = try await Self.resolve(target: target, tokens: tokens, pack: pack)
                let lint = AccessibilityLint(platform: platform)
                var findings = screens.flatMap { lint.findings(in: $0) }
                if layout {
                    let check = try TextLayoutCheck()
                    let large = try await Self.resolve(target: target, tokens: tokens, pack: pack,
                                                       textScale: TextLayoutCheck.textScale)
                    for tree in large { findings += try await check.findings(in: tree) }
                }
                if output.json {
                    let list: [JSONValue] = findings.map { f in
                        ["rule": .string(f.rule), "severity": .string(f.severity.rawValue), "screen": .string(f.screen),
                         "node": .string(f.node), "token": f.token.map { .string($0) } ?? .null,
                         "message": .string(f.message), "wcag": f.wcag.map { .string($0) } ?? .null]
                    }
                    print(JSONValue.object(["findings": .array(list)]).jsonText)
                } else {
                    for f in findings {
                        say("\(f.severity.rawValue): \(f.screen) \(f.node)\(f.token.map { " (token \($0))" } ?? ""): "
                              + "\(f.rule)\(f.wcag.map { " [WCAG \($0)]" } ?? ""): \(f.message)")
                    }
                    let errors = findings.filter { $0.severity == .error }.count
                    say("\(screens.count) screen(s): \(errors) error(s), \(findings.count - errors) warning(s)")
                }
                if findings.contains(where: { $0.severity == .error }) { throw ExitCode(1) }
            }
        }

        /// The render trees of `target`: one screen, a flow's screens, or a folder's.
        /// `textScale` is the accessibility scale screens are resolved at.
        package static func resolve(target: String, tokens: String?, pack: String?,
                            textScale: Double = 1, locale: String? = nil,
                            defaultLocale: String = "en") async throws -> [RenderTree] {
            let url = URL(fileURLWithPath: target)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else {
                throw SDUIError(.notFound, "no such file or folder", input: target)
            }
            let dir = isDir.boolValue ? url : url.deletingLastPathComponent().deletingLastPathComponent()
            let corePack = try pack.map { try CorePack(contentsOf: URL(fileURLWithPath: $0)) }
            let folder = ExampleScreens(dir: dir, pack: corePack)
            let tokenDir = tokens.map { URL(fileURLWithPath: $0) }
            /// A token from --tokens DIR when given, else the pack or the folder's tokens/.
            func lookup(_ id: String) -> TokenLookup {
                guard let tokenDir else { return folder.lookup(id) }
                let file = tokenDir.appendingPathComponent(id + ".json")
                guard ExampleScreens.isFileID(id), FileManager.default.fileExists(atPath: file.path) else {
                    return .unavailable(SDUIError(.notFound, "no token \"\(id)\" in \(tokenDir.path)", input: id))
                }
                do {
                    return .found(try DesignToken(json: try FileInput.read(file.path, limit: FileInput.documentLimit),
                                                  source: file.path), .network)
                } catch let e as SDUIError {
                    return .unavailable(e)
                } catch {
                    return .unavailable(SDUIError(.unknown, "\(error)", input: id))
                }
            }
            var context = RenderContext()
            // Render problems are not the lint's findings: keep them off the report.
            context.logger.logLevel = .critical
            context.textScale = textScale
            context.themes = ThemeCatalog(ExampleScreens(dir: dir, pack: nil).themes().themes)
            // The folder's catalogs, so @string.… props read as the app shows them.
            context.strings = try folder.strings(defaultLocale: defaultLocale)
            context.locale = try locale.map { try LocaleTag($0).identifier }
            let resolver = ScreenResolver(context)
            /// One screen's items resolved with its tokens looked up.
            func tree(_ items: ScreenItems) -> RenderTree {
                var lookups: [String: TokenLookup] = [:]
                for t in items.tokenIDs { lookups[t] = lookup(t) }
                return resolver.resolve(items, lookups: lookups)
            }
            /// The trees of one file: a flow's screens, or the screen.
            func trees(of file: URL) throws -> [RenderTree] {
                let data = try FileInput.read(file.path, limit: FileInput.documentLimit)
                let name = file.lastPathComponent
                if let value = try? JSONValue(json: data, source: name), value["screens"]?.arrayValue != nil,
                   value["start"] != nil {
                    let flow = try FlowDefinition(json: data, source: name)
                    return flow.screens.map { s in
                        tree(BlockScreen(id: s.id, themeId: s.themeId, blocks: s.blocks).screenItems)
                    }
                }
                return [tree(try ScreenFormat.items(data, source: name))]
            }
            guard isDir.boolValue else { return try trees(of: url) }
            var out: [RenderTree] = []
            for sub in ExampleScreens.screenFolders + ["flows"] {
                let folderURL = url.appendingPathComponent(sub)
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: folderURL.path)) ?? [])
                    .filter { $0.hasSuffix(".json") }.sorted()
                for name in names { out += try trees(of: folderURL.appendingPathComponent(name)) }
            }
            if out.isEmpty { throw SDUIError(.notFound, "no screens in screens/, blocks/, payloads/ or flows/", input: target) }
            return out
        }
    }
}

extension AccessibilityPlatform: ExpressibleByArgument {}
#endif
