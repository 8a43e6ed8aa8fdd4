// ScreenCommand.swift - `sdui screen run`: drive any screen (token screen,
// block screen or normalized payload) with its actions and inputs, from a
// script or the terminal, and report what was shown, stored and sent.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUICore
import SDUIFlow
import SDUIStore

package struct ScreenCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "screen",
        abstract: "Run screens outside a flow: their actions, inputs and events.",
        discussion: """
        Example:
          sdui screen run checkout --examples Examples --script steps.json
        """,
        subcommands: [Run.self])

    package init() {}

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Drive a screen by taps and inputs, from a script or the terminal.",
            discussion: """
            SCREEN is a screen id at --registry, or a file name (without .json) in --examples DIR's \
            screens/, blocks/ or payloads/ (any of them, and tokens/ and themes/, may be absent). \
            Buttons run their actions (navigate, back, set, request, validate, open_url, track, \
            sequence, if); inputs write through the store, whose rules apply.

            With --script FILE (a JSON array of steps: {"tap": LABEL_OR_NODE_ID}, \
            {"input": {KEY: VALUE, …}}, "back") it prints one JSON object: {"screens": [every \
            screen shown, in order], "current": ID, "store": {…}, "events": [names in order], \
            "issues": [{"kind", "node", "message"}, …]}. A step that cannot apply is an issue of \
            kind "step" and the run goes on. With --events, the queued events (this run's and any an \
            earlier run with the same --state left) are sent after each step. Node ids are the token id and the path inside it \
            (checkout_pay_button, checkout_pay_button/0; $/2/0 for a block's nodes).

            Without --script: the terminal. Commands: tap LABEL_OR_ID, input KEY VALUE, back, \
            nodes, help, quit.

            Examples:
              sdui screen run checkout --examples Examples --script steps.json
              sdui screen run checkout --registry http://127.0.0.1:8080/ --bearer T --events http://127.0.0.1:8080/events
            """)

        @Argument(help: "The screen id.")
        var screen: String

        @OptionGroup var output: OutputOptions

        @Option(help: "A registry's base URL to load screens and tokens from.")
        var registry: String?

        @Option(help: "A bearer token for --registry and --events.")
        var bearer: String?

        @Option(help: "A folder in the Examples/ layout to load screens, tokens and themes from.")
        var examples: String?

        @Option(help: "A Core-Token Pack tokens come from first.")
        var pack: String?

        @Option(help: "The locale to run in (e.g. de-CH): its strings from the registry, the folder or the pack.")
        var locale: String?

        @Option(help: "Scenario data to start from: a JSON file holding an object.")
        var store: String?

        @Option(help: "The outbox (SQLite) the events are queued in. Default: a temporary file.")
        var state: String?

        @Option(help: "Send the queued events to this POST /events URL at the end of the run.")
        var events: String?

        @Option(help: "Run the steps of this JSON file (- for standard input) instead of the terminal.")
        var script: String?

        @Option(help: "The user the events are reported for.")
        var user = "cli"

        @Option(name: .customLong("api-base"), help: "What a request action's path (/cart/items) is resolved against.")
        var apiBase: String?

        @Flag(help: "Print `ack SEQ SCREEN` on stderr once a step's events are committed (SEQ: the session's events so far).")
        var trace = false

        @Option(name: .customLong("step-delay-ms"), help: .hidden)
        var stepDelayMS = 0

        @Option(name: .customLong("allow-scheme"),
                help: "A URL scheme open_url may use besides https (repeatable); javascript:, file:, intent:, data: and their kin never.")
        var allowScheme: [String] = []

        /// Exactly one source of screens.
        func validate() throws {
            switch (registry, examples) {
            case (_?, nil), (nil, _?): break
            case (_?, _?): throw ValidationError("give --registry or --examples, not both")
            default: throw ValidationError("give --registry URL or --examples DIR")
            }
            if bearer != nil && registry == nil && events == nil {
                throw ValidationError("--bearer goes with --registry or --events")
            }
        }

        /// The Authorization header of --bearer.
        var authorization: [String: String] { bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:] }

        func run() async throws {
            try await reportingErrors { try await drive() }
        }

        /// An http(s) URL given to `option`.
        static func httpURL(_ text: String, _ option: String) throws -> URL {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw SDUIError(.argument, "expected an http(s) URL", input: "\(option) \(text)")
            }
            return url
        }

        /// Builds the session over the chosen source.
        func makeSession(journal: FlowJournal) async throws -> ScreenSession {
            let core = try pack.map { try CorePack(contentsOf: URL(fileURLWithPath: $0)) }
            var context = RenderContext()
            context.locale = try locale.map { try LocaleTag($0).identifier }
            let provider: any ScreenProvider
            if let examples {
                let folder = ExampleScreens(dir: URL(fileURLWithPath: examples), pack: core)
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: examples, isDirectory: &isDir), isDir.boolValue else {
                    throw SDUIError(.notFound, "no such folder", input: examples)
                }
                let (themes, skipped) = folder.themes()
                for s in skipped { FileHandle.standardError.write(Data("warning: skipped \(s)\n".utf8)) }
                context.themes = ThemeCatalog(themes)
                context.flowThemeID = themes.first?.id
                context.strings = try folder.strings()
                provider = folder
            } else {
                let base = try Self.httpURL(registry ?? "", "--registry")
                let transport = HTTPRegistryTransport(baseURL: base, primitives: PrimitiveMap.builtIn.headerValue,
                                                      bearerToken: bearer)
                // The strings of the locale (else the registry's default), as an app gets them.
                let wanted = AcceptLanguage(try locale.map { [try LocaleTag($0).identifier] } ?? [])
                let strings = await StringSource(preferred: wanted, transport: transport, pack: core).load()
                context.strings = strings.catalog
                let repository = TokenRepository(pack: core, memory: try TokenCache(), transport: transport)
                provider = ScreenLoader(repository: repository, resolver: ScreenResolver(context))
            }
            context.logger.logLevel = .error
            let data = DefaultStore(appID: "sdui.cli").store(.scenarioSession(id: "screen-run"))
            if let store {
                let value = try JSONValue(json: try readFile(store, limit: FileInput.documentLimit), source: inputName(store))
                guard let object = value.objectValue else {
                    throw SDUIError(.schema, "the store file must hold a JSON object", input: inputName(store))
                }
                data.replaceAll(with: object.mapValues(StoreValue.init))
            }
            // Refusals are in the output's issues (or said at the prompt): the log keeps errors only.
            var quiet = Logger(label: "sdui.screen")
            quiet.logLevel = .error
            return ScreenSession(provider: provider, resolver: ScreenResolver(context), store: data, journal: journal,
                                 configuration: .init(userID: user, linkPolicy: try linkPolicy(allowScheme), logger: quiet,
                                                      apiBase: try apiBase.map { try Self.httpURL($0, "--api-base") }))
        }

        func drive() async throws {
            let statePath = state ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("sdui-screen-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
            let journal = try FlowJournal(path: statePath)
            if let note = journal.recovery { FileHandle.standardError.write(Data("warning: \(note)\n".utf8)) }
            let uploader = try events.map {
                EventUploader(journal: journal, configuration: .init(endpoint: try Self.httpURL($0, "--events"),
                                                                     headers: authorization))
            }
            let session = try await makeSession(journal: journal)
            /// After each step: `ack` with --trace, then the queued events sent with --events.
            func stepped() async {
                if trace {
                    FileHandle.standardError.write(Data("ack \(session.emittedEvents.count) \(session.currentScreen ?? "-")\n".utf8))
                }
                if let uploader { await Self.flush(uploader) }
            }
            try await session.open(screen)
            await stepped()
            if let script {
                let value = try JSONValue(json: try readFile(script, limit: FileInput.documentLimit), source: inputName(script))
                guard let steps = value.arrayValue else {
                    throw SDUIError(.schema, "a script is a JSON array of steps", input: inputName(script))
                }
                var issues: [JSONValue] = []
                var seen = 0
                /// The session's new issues, then the step's own.
                func note(_ stepIssue: ScreenSessionIssue?) {
                    let all = session.issues
                    for i in all[seen...] { issues.append(Self.json(i)) }
                    seen = all.count
                    if let stepIssue { issues.append(Self.json(stepIssue)) }
                }
                note(nil)
                for (i, step) in steps.enumerated() {
                    if stepDelayMS > 0 { try await Task.sleep(for: .milliseconds(stepDelayMS)) }
                    note(try await apply(step, at: i, to: session))
                    await stepped()
                }
                let out: JSONValue = .object([
                    "screens": .array(session.screensShown.map { .string($0) }),
                    "current": session.currentScreen.map { .string($0) } ?? .null,
                    "store": .object(session.store.snapshot().mapValues(\.jsonValue)),
                    "events": .array(session.emittedEvents.map { .string($0) }),
                    "issues": .array(issues),
                ])
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(out), as: UTF8.self))
                return
            }
            try await interactive(session)
            await stepped()
        }

        /// Sends the queued events; a failure leaves them queued and says so.
        static func flush(_ uploader: EventUploader) async {
            do { try await uploader.flush() } catch {
                FileHandle.standardError.write(Data("warning: events stay queued: \(error)\n".utf8))
            }
        }

        /// An issue as the output lists it.
        static func json(_ i: ScreenSessionIssue) -> JSONValue {
            ["kind": .string(i.kind), "node": i.node.map(JSONValue.string) ?? .null, "message": .string(i.message)]
        }

        /// Applies script step `i`; the issue of a step that cannot apply.
        func apply(_ step: JSONValue, at i: Int, to session: ScreenSession) async throws -> ScreenSessionIssue? {
            let place = "\(inputName(script ?? "-")): step \(i)"
            do {
                switch step {
                case .string("back"):
                    if case .stayed(let why) = try session.back() {
                        return ScreenSessionIssue(kind: "step", node: nil, message: "\(place): back: \(why)")
                    }
                    return nil
                case .object(let o) where o.count == 1 && o["tap"]?.stringValue != nil:
                    _ = try await session.tap(o["tap"]!.stringValue!)
                    return nil
                case .object(let o) where o.count == 1 && o["input"]?.objectValue != nil:
                    for (key, value) in o["input"]!.objectValue!.sorted(by: { $0.key < $1.key }) {
                        guard session.input(for: key) != nil else {
                            return ScreenSessionIssue(kind: "step", node: key,
                                                      message: "\(place): screen \"\(session.currentScreen ?? "")\" has no input for \"\(key)\"")
                        }
                        _ = try session.input(key, value)
                    }
                    return nil
                default:
                    return ScreenSessionIssue(kind: "step", node: nil,
                                              message: "\(place): a step is {\"tap\": LABEL_OR_NODE_ID}, {\"input\": {KEY: VALUE}} or \"back\"")
                }
            } catch let e as SDUIError where [.notFound, .argument].contains(e.category) {
                return ScreenSessionIssue(kind: "step", node: step["tap"]?.stringValue, message: "\(place): \(e.message)")
            }
        }

        /// The terminal loop: lists the screen's nodes that act or take
        /// input, reads a command per line.
        func interactive(_ session: ScreenSession) async throws {
            func out(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
            func draw() {
                guard let tree = session.tree else { return }
                out("screen \(tree.screen)" + (session.backStack.isEmpty ? "" : " (back: \(session.backStack.joined(separator: " → ")))"))
                for n in RenderNodeID.all(in: tree) {
                    let p = n.node.props
                    if ScreenSession.inputPrimitives.contains(n.node.primitive), let key = p["key"]?.stringValue {
                        var line = "  [\(n.id)] \(n.node.primitive) \(key) = \(p["value"].map { "\($0)" } ?? "—")"
                        if let m = p["message"]?.stringValue { line += "  ⚠ \(m)" }
                        out(line)
                    } else if p["action"] != nil {
                        out("  [\(n.id)] \(n.node.primitive) \"\(p["label"]?.stringValue ?? p["text"]?.stringValue ?? "")\"")
                    } else if n.node.primitive == "Text", let t = p["text"]?.stringValue {
                        out("  \(t)")
                    }
                }
            }
            draw()
            while true {
                FileHandle.standardOutput.write(Data("> ".utf8))
                guard let line = readLine() else { break }
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard let verb = words.first else { continue }
                do {
                    switch verb {
                    case "tap" where words.count >= 2:
                        let u = try await session.tap(words.dropFirst().joined(separator: " "))
                        if case .stayed(let why) = u.step { out("stayed: \(why)") }
                    case "input" where words.count == 3:
                        let value = (try? JSONValue(json: Data(words[2].utf8))) ?? .string(words[2])
                        _ = try session.input(words[1], value)
                    case "back":
                        if case .stayed(let why) = try session.back() { out("stayed: \(why)") }
                    case "nodes":
                        for n in RenderNodeID.all(in: session.tree!) { out("  [\(n.id)] \(n.node.primitive)") }
                        continue
                    case "quit", "exit":
                        return
                    default:
                        out("tap LABEL_OR_ID | input KEY VALUE | back | nodes | quit")
                        continue
                    }
                } catch let e as SDUIError {
                    out("error: \(e.message)")
                }
                draw()
            }
        }
    }
}
#endif
