// FlowCommand.swift - `sdui flow`: validate a flow, walk it in the terminal
// or from a script, preview its screens as HTML.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICore
import SDUIFlow

package struct FlowCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "flow",
        abstract: "Validate, run and preview flows (schemas/flow.json).",
        discussion: """
        Example:
          sdui flow validate Examples/flows/onboarding.json && sdui flow run Examples/flows/onboarding.json
        """,
        subcommands: [Validate.self, Run.self, Preview.self])

    package init() {}

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check a flow: targets, reachability, completion, conditions, keys, blocks, actions.",
            discussion: """
            Prints each problem with its screen and JSON path; exits 1 when there is an error (warnings alone exit 0).

            Examples:
              sdui flow validate Examples/flows/onboarding.json
              sdui flow validate - --json --allow-scheme tel < onboarding.json
            """)

        @Argument(help: "The flow file (- for standard input).")
        var flow: String

        @Flag(help: "Print the problems as a JSON array.")
        var json = false

        @Option(name: .customLong("allow-scheme"),
                help: "A URL scheme open_url may use besides https (repeatable); javascript:, file:, intent:, data: and their kin never.")
        var allowScheme: [String] = []

        func run() throws {
            let (def, links) = try reportingErrors {
                (try FlowDefinition(json: try readFile(flow, limit: FileInput.documentLimit), source: inputName(flow)),
                 try linkPolicy(allowScheme))
            }
            let issues = FlowValidator(links: links).validate(def)
            if json {
                let list = JSONValue.array(issues.map { i in
                    .object(["severity": .string(i.severity.rawValue), "kind": .string(i.kind.rawValue),
                             "screen": i.screen.map { .string($0) } ?? .null, "path": .string(i.path),
                             "message": .string(i.message)])
                })
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(list), as: UTF8.self))
            } else {
                for i in issues {
                    FileHandle.standardError.write(Data("\(i.severity == .error ? "error: flow" : "warning: flow"): \(inputName(flow)): \(i.path)"
                        .utf8 + Data(((i.screen.map { " (screen \"\($0)\")" } ?? "") + ": \(i.message)\n").utf8)))
                }
                let errors = issues.filter { $0.severity == .error }.count
                if errors == 0 {
                    print("ok: flow \"\(def.id)\" version \(def.version): \(def.screens.count) screens"
                          + (issues.isEmpty ? "" : ", \(issues.count) warning(s)"))
                }
            }
            if issues.contains(where: { $0.severity == .error }) { throw ExitCode(1) }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Walk a flow in the terminal, or from a script; resume from --state.",
            discussion: """
            FLOW is a flow file, or with --registry a flow id fetched from GET /flows/{id} (the last good \
            definition is kept in the state file for offline starts). Progress and analytics events are \
            committed to the state file (SQLite) at every step, so a run killed at any moment resumes \
            where it stopped. In the terminal: `answer KEY VALUE` (a choice also takes its option's \
            number), `next`, `back`, `exit`, `help`. With --script FILE (a JSON array of steps: \
            {"answer": {KEY: VALUE, …}}, {"action": ACTION}, "next", "back", "exit") it runs without a \
            terminal and prints one JSON object: {"screens", "current", "status", "answers", "events"}. \
            A step that cannot apply stays on the screen (said on stderr) and the run goes on; so does an \
            action that is refused (an open_url the link policy refuses, a set whose expression fails, a \
            submit without an endpoint or that cannot reach it), which is also a render_error event. \
            --state must name a state file of sdui (or a new or empty file): any other file is refused and \
            left as it is; a damaged state file is moved aside (said on stderr) and a fresh one made, and \
            saved progress that does not decode is kept aside in the state file (said on stderr) while the \
            flow starts afresh.

            Examples:
              sdui flow run Examples/flows/onboarding.json --state onboarding.db
              sdui flow run Examples/flows/onboarding.json --script steps.json --state onboarding.db
            """)

        @Argument(help: "The flow file, or its id with --registry.")
        var flow: String

        @OptionGroup var output: OutputOptions

        @Option(help: "The user the progress belongs to.")
        var user = "local"

        @Option(help: "The state file (SQLite): progress, queued events, the kept definition. Default: a temporary file.")
        var state: String?

        @Option(help: "A host attribute, key=value (the value is JSON when it parses, else text); repeatable.")
        var attr: [String] = []

        @Option(help: "Run the steps of this JSON file (- for standard input) instead of the terminal.")
        var script: String?

        @Option(help: "Fetch the flow from this registry (base URL) instead of a file.")
        var registry: String?

        @Option(name: .customLong("fallback-pack"),
                help: "A Fallback Pack whose flows start a first run when --registry cannot be reached and no definition is kept.")
        var fallbackPack: String?

        @Option(help: "Send the queued analytics events to this POST /events URL after each step.")
        var events: String?

        @Option(help: "A bearer token for --registry and --events.")
        var bearer: String?

        @Flag(help: "Print each committed step on stderr (`ack N SCREEN`).")
        var trace = false

        @Option(name: .customLong("allow-scheme"),
                help: "A URL scheme open_url may use besides https (repeatable); javascript:, file:, intent:, data: and their kin never.")
        var allowScheme: [String] = []

        @Option(name: .customLong("step-delay-ms"), help: .hidden)
        var stepDelayMS = 0

        func run() async throws {
            try await reportingErrors { try await walk() }
        }

        /// The Authorization header of --bearer.
        var authorization: [String: String] { bearer.map { ["Authorization": "Bearer \($0)"] } ?? [:] }

        func walk() async throws {
            let statePath = state ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("sdui-flow-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
            let links = try linkPolicy(allowScheme)
            let journal = try FlowJournal(path: statePath)
            if let note = journal.recovery {
                FileHandle.standardError.write(Data("warning: \(note)\n".utf8))
            }
            let def: FlowDefinition
            if let registry {
                guard let base = URL(string: registry), base.scheme == "http" || base.scheme == "https" else {
                    throw SDUIError(.argument, "expected an http(s) URL", input: "--registry \(registry)")
                }
                let pack = try fallbackPack.map { try FallbackPack(contentsOf: URL(fileURLWithPath: $0)) }
                let (loaded, source) = try await FlowLoader(registry: base, journal: journal, headers: authorization,
                                                            validator: FlowValidator(links: links), fallbackPack: pack).load(flow)
                if source == .fallbackPack || source == .offline {
                    let from = source == .offline ? "the kept definition" : "the Fallback Pack"
                    FileHandle.standardError.write(Data("note: the registry cannot be reached; flow \"\(flow)\" from \(from)\n".utf8))
                }
                def = loaded
            } else {
                def = try FlowDefinition(json: try readFile(flow, limit: FileInput.documentLimit), source: inputName(flow))
            }
            let attributes = try RenderCommand.bindings(attr)
            let session = try FlowSession(definition: def, journal: journal,
                                          configuration: .init(userID: user, attributes: attributes,
                                                               linkPolicy: links))
            let uploader = try events.map { text -> EventUploader in
                guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                    throw SDUIError(.argument, "expected an http(s) URL", input: "--events \(text)")
                }
                return EventUploader(journal: journal, configuration: .init(endpoint: url, headers: authorization))
            }
            var shown: [String] = []
            var steps = 0
            /// With --trace: `ack SEQ SCREEN` on stderr once a step is committed.
            func acknowledge() {
                guard trace, let p = session.progress else { return }
                FileHandle.standardError.write(Data("ack \(p.eventSeq) \(p.screen ?? p.status.rawValue)\n".utf8))
            }
            func record(_ step: FlowStep) async {
                steps += 1
                if case .screen(let id) = step, shown.last != id || steps == 1 { shown.append(id) }
                if case .stayed(let why) = step {
                    FileHandle.standardError.write(Data("note: stayed on \"\(session.currentScreen?.id ?? "-")\": \(why)\n".utf8))
                }
                acknowledge()
                if let uploader {
                    do { try await uploader.flush() } catch {
                        FileHandle.standardError.write(Data("warning: events stay queued: \(error)\n".utf8))
                    }
                }
            }
            let first = try session.start()
            for note in session.notices {
                FileHandle.standardError.write(Data("warning: \(note)\n".utf8))
            }
            if case .screen(let id) = first { shown.append(id) }
            steps = 1
            acknowledge()
            if let uploader { _ = try? await uploader.flush() }
            if let script {
                let value = try JSONValue(json: try readFile(script, limit: FileInput.documentLimit), source: inputName(script))
                guard let list = value.arrayValue else {
                    throw SDUIError(.schema, "a script is a JSON array of steps", input: inputName(script))
                }
                for (i, step) in list.enumerated() {
                    if stepDelayMS > 0 { try await Task.sleep(for: .milliseconds(stepDelayMS)) }
                    await record(try await apply(step, index: i, to: session))
                }
                let out: JSONValue = .object([
                    "screens": .array(shown.map { .string($0) }),
                    "current": session.progress?.screen.map { .string($0) } ?? .null,
                    "status": .string(session.progress?.status.rawValue ?? "in_progress"),
                    "answers": .object(session.progress?.answers ?? [:]),
                    "events": .array(session.emittedEvents.map { .string($0) }),
                ])
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(out), as: UTF8.self))
                return
            }
            try await interactive(session, record)
        }

        /// Applies one script step; a step that cannot apply is a `.stayed`.
        func apply(_ step: JSONValue, index i: Int, to session: FlowSession) async throws -> FlowStep {
            do {
                return try await applyStep(step, index: i, to: session)
            } catch let e as SDUIError where e.category == .argument {
                return .stayed(e.message)   // e.g. "next" after the flow ended
            }
        }

        func applyStep(_ step: JSONValue, index i: Int, to session: FlowSession) async throws -> FlowStep {
            let place = "\(inputName(script ?? "-")): step \(i)"
            switch step {
            case .string("next"): return try session.next()
            case .string("back"): return try session.back()
            case .string("exit"): return try session.exit()
            case .object(let o) where o.count == 1 && o["answer"]?.objectValue != nil:
                for (key, value) in o["answer"]!.objectValue!.sorted(by: { $0.key < $1.key }) {
                    do {
                        try session.answer(key, value)
                    } catch let e as SDUIError where e.category == .argument {
                        return .stayed(e.message)
                    }
                }
                return session.progress.map { p in p.screen.map { .screen($0) } ?? .stayed("the flow is over") }
                    ?? .stayed("the flow has not started")
            case .object(let o) where o.count == 1 && o["action"] != nil:
                do {
                    return try await session.perform(json: o["action"]!)
                } catch let e as SDUIError where e.category == .argument {
                    return .stayed(e.message)
                }
            default:
                throw SDUIError(.schema, "a step is \"next\", \"back\", \"exit\", {\"answer\": {…}} or {\"action\": …}",
                                input: place)
            }
        }

        /// The terminal loop: draws the screen, reads a command per line.
        func interactive(_ session: FlowSession, _ record: (FlowStep) async -> Void) async throws {
            func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
            func draw() {
                guard let screen = session.currentScreen else {
                    say("flow \(session.progress?.status.rawValue ?? "over")")
                    return
                }
                say(FlowText.draw(screen, answers: session.progress?.answers ?? [:], refusal: session.lastRefusal))
            }
            draw()
            while session.currentScreen != nil {
                FileHandle.standardOutput.write(Data("> ".utf8))
                guard let line = readLine() else { break }
                let words = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard let verb = words.first else { continue }
                do {
                    switch verb {
                    case "next": await record(try session.next())
                    case "back": await record(try session.back())
                    case "exit": await record(try session.exit())
                    case "answer" where words.count == 3:
                        let key = words[1]
                        var value = (try? JSONValue(json: Data(words[2].utf8))) ?? .string(words[2])
                        if let block = session.currentScreen?.blocks.first(where: { $0["key"]?.stringValue == key }),
                           block["type"]?.stringValue == "choice", let n = value.intValue,
                           let options = block["options"]?.arrayValue, n >= 1, n <= options.count {
                            value = options[Int(n) - 1]["value"] ?? value
                        }
                        try session.answer(key, value)
                        await record(.screen(session.currentScreen?.id ?? ""))
                    case "help":
                        say("answer KEY VALUE | next | back | exit")
                        continue
                    default:
                        say("unknown command; answer KEY VALUE | next | back | exit")
                        continue
                    }
                } catch let e as SDUIError {
                    say("error: \(e.message)")
                }
                draw()
            }
            if session.currentScreen == nil { say("flow \(session.progress?.status.rawValue ?? "over")") }
        }
    }

    struct Preview: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "preview",
            abstract: "Write one HTML preview per screen of a flow, and an index.",
            discussion: """
            Example:
              sdui flow preview Examples/flows/onboarding.json --out preview --theme Examples/themes/theme_nordlicht.json
            """)

        @Argument(help: "The flow file (- for standard input).")
        var flow: String

        @OptionGroup var output: OutputOptions

        @Option(help: "The folder to write to (created when missing).")
        var out: String

        @Option(help: "A theme file (repeatable); the flow's and screens' themeId choose among them.")
        var theme: [String] = []

        @Option(help: "light or dark.")
        var mode: ThemeMode = .light

        func run() throws {
            try reportingErrors {
                let def = try FlowDefinition(json: try readFile(flow, limit: FileInput.documentLimit), source: inputName(flow))
                var context = RenderContext()
                context.themes = ThemeCatalog(try theme.map { try Theme(contentsOf: URL(fileURLWithPath: $0)) })
                context.flowThemeID = def.themeId
                context.mode = mode
                let resolver = ScreenResolver(context)
                let dir = URL(fileURLWithPath: out)
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                var links: [String] = []
                for (i, screen) in def.screens.enumerated() {
                    let tree = resolver.resolve(screen.blockScreen)
                    let name = String(format: "%02d-", i + 1) + Self.fileName(screen.id) + ".html"
                    try writeFile(Data(HTMLPreview.render(tree, title: "\(def.id) · \(screen.id)").utf8),
                                  to: dir.appendingPathComponent(name).path)
                    links.append("<li><a href=\"\(name)\">\(htmlEscape(screen.id))</a></li>")
                    for issue in tree.issues { FileHandle.standardError.write(Data("warning: \(screen.id): \(issue)\n".utf8)) }
                }
                let index = "<!doctype html><meta charset=\"utf-8\"><title>\(htmlEscape(def.id))</title>"
                    + "<h1>\(htmlEscape(def.id)) (version \(htmlEscape(def.version)))</h1><ol>"
                    + links.joined() + "</ol>\n"
                try writeFile(Data(index.utf8), to: dir.appendingPathComponent("index.html").path)
                print("wrote \(def.screens.count) screen(s) and index.html to \(out)")
            }
        }

        /// `id` with every character but letters, digits, `-` and `_` made `_`.
        static func fileName(_ id: String) -> String {
            String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        }
    }
}

/// The link policy of `--allow-scheme`: https and the schemes given.
func linkPolicy(_ schemes: [String]) throws -> LinkPolicy {
    guard !schemes.isEmpty else { return .https }
    do {
        return try LinkPolicy(allowedSchemes: Set(schemes + ["https"]))
    } catch let e as SDUIError {
        throw SDUIError(e.category, e.message, input: "--allow-scheme")
    }
}

/// `s` safe in HTML text.
func htmlEscape(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}

/// A screen drawn as text for the terminal.
enum FlowText {
    static func draw(_ screen: FlowScreen, answers: [String: JSONValue], refusal: String?) -> String {
        var lines = ["── \(screen.id) ──"]
        for b in screen.blocks {
            let type = b["type"]?.stringValue ?? ""
            let key = b["key"]?.stringValue
            let answer = key.flatMap { answers[$0] }.map { "  = \($0.scalarText ?? "\($0)")" } ?? ""
            let required = b["required"]?.boolValue == true ? " (required)" : ""
            switch type {
            case "header":
                lines.append("# \(b["title"]?.stringValue ?? "")")
                if let s = b["subtitle"]?.stringValue { lines.append("  \(s)") }
            case "choice":
                lines.append("[\(key ?? "?")]\(required)\(answer)")
                for (i, o) in (b["options"]?.arrayValue ?? []).enumerated() {
                    lines.append("  \(i + 1)) \(o["label"]?.stringValue ?? "") [\(o["value"]?.scalarText ?? "")]")
                }
            case "text_input":
                lines.append("[\(key ?? "?")] \(b["label"]?.stringValue ?? b["placeholder"]?.stringValue ?? "text")\(required)\(answer)")
            case "slider":
                lines.append("[\(key ?? "?")] \(b["min"]?.scalarText ?? "")…\(b["max"]?.scalarText ?? "")\(required)\(answer)")
            case "benefits_list":
                for item in b["items"]?.arrayValue ?? [] { lines.append("  ✓ \(item.stringValue ?? item["text"]?.stringValue ?? "")") }
            case "cta":
                for k in ["primary", "secondary"] {
                    guard let button = b[k] else { continue }
                    let action = button["action"]?.stringValue ?? button["action"]?["type"]?.stringValue ?? "next"
                    lines.append("  (\(action)) \(button["label"]?.stringValue ?? "")")
                }
            case "footer": lines.append("  \(b["text"]?.stringValue ?? "")")
            case "testimonial": lines.append("  “\(b["quote"]?.stringValue ?? "")”")
            case "media": lines.append("  [image \(b["url"]?.stringValue ?? "")]")
            case "spacer": lines.append("")
            default: lines.append("  [unsupported block: \(type)]")
            }
        }
        if let refusal { lines.append("⚠ \(refusal)") }
        lines.append("commands: answer KEY VALUE | next | back | exit")
        return lines.joined(separator: "\n")
    }
}
#endif
