// PackCommand.swift - `sdui pack inspect|build`.
#if Server
import ArgumentParser
import Foundation
import SDUI
import SDUICLI
import SDUIServer

struct PackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Inspect or build Core-Token Packs.",
        discussion: """
        Example:
          sdui pack build Examples/tokens --out core.json.gz && sdui pack inspect core.json.gz
        """,
        subcommands: [Inspect.self, Build.self]
    )

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Open a pack and print its token count, sizes, gzip members and open time.",
            discussion: """
            Exit status 1 when the pack cannot be opened, or (with --check-tokens) when a token is invalid.

            Examples:
              sdui pack inspect core.json.gz --check-tokens
              sdui pack build Examples/tokens --out - | sdui pack inspect - --json
            """)

        @Argument(help: "The pack file (gzipped JSON; - for standard input).")
        var path: String

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        @Flag(help: "Also parse and schema-check every token (open stays lazy without it).")
        var checkTokens = false

        struct Report: Encodable {
            var path: String
            var tokens: Int
            var compressedBytes: Int
            var rawBytes: Int
            var members: Int
            /// A seekable pack, and the members its open inflated (all of
            /// a plain pack's).
            var seekable: Bool
            var membersInflated: Int
            var openMilliseconds: Double
            var checkedTokens: Int?
            /// With --check-tokens: every token that failed, in pack order.
            var badTokens: [ErrorJSON]?
        }

        func run() throws {
            try reportingErrors {
                // `-`: the pack on standard input (read first, then opened from memory).
                let stdin = path == "-" ? try readFile(path, limit: PackLimits.default.maxCompressedBytes) : nil
                let (pack, ms) = try measure {
                    try stdin.map { try CorePack(data: $0, name: inputName(path)) }
                        ?? CorePack(contentsOf: URL(fileURLWithPath: path))
                }
                var checked: Int?
                var bad: [SDUIError] = []
                if checkTokens {
                    // Every token is checked; each failure is reported, not only the first.
                    for id in pack.ids {
                        do { _ = try pack.token(id) } catch let e as SDUIError { bad.append(e) }
                    }
                    checked = pack.count
                }
                let info = pack.info
                let report = Report(path: path, tokens: info.tokens,
                                    compressedBytes: info.compressedBytes, rawBytes: info.rawBytes,
                                    members: info.members, seekable: info.seekable,
                                    membersInflated: info.membersInflated,
                                    openMilliseconds: (ms * 1000).rounded() / 1000,
                                    checkedTokens: checked, badTokens: checkTokens ? bad.map(ErrorJSON.init) : nil)
                if json {
                    try printJSON(report)
                    if !bad.isEmpty { throw ExitCode(1) }
                    return
                }
                say("pack:             \(inputName(path))")
                print("tokens:           \(info.tokens)")
                print("compressed bytes: \(info.compressedBytes)")
                print("raw JSON bytes:   \(info.rawBytes)")
                print("gzip members:     \(info.members)" + (info.seekable
                    ? " (seekable; \(info.membersInflated) inflated by the open)" : ""))
                print("open time:        \(String(format: "%.3f", ms)) ms")
                if let checked {
                    print("tokens checked:   \(checked) (\(bad.isEmpty ? "all valid" : "\(bad.count) invalid"))")
                }
                for e in bad { printError(e) }
                if !bad.isEmpty { throw ExitCode(1) }
            }
        }
    }

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Build a Core-Token Pack (and its manifest, and a Fallback Pack) from a folder or a registry.",
            discussion: """
            Tokens come from DIR (token files), a registry (--db / --postgres: the highest version \
            each token has that --primitives supports), or a running registry (--registry-url: the ids \
            of the usage file, fetched 50 at a time). They are ranked by --usage counts and the largest \
            top slice whose gzip size fits --budget is written. A plain pack past 2 MiB of JSON is written \
            as a few growing gzip members, the first header giving the total size, so an open scans \
            one member while the next inflates. With --seekable the pack is several gzip \
            members cut between tokens (the first of about --member-bytes of JSON, each next one four times \
            the one before, up to --max-member-bytes), whose headers list the ids they hold, so an app \
            inflates only the members its screens use; the budget applies to that file as written, and \
            gzip -dc prints the same JSON as a plain pack's. The build fails, naming every problem, \
            when a token is invalid, or when the pack's size moved more than --max-delta bytes from \
            --previous. Usage file: JSON {"counts": {"id": n}} or CSV lines id,count (- for standard input).

            Examples:
              sdui pack build Examples/tokens --out core.json.gz --budget 150000
              sdui pack build --db registry.db --usage Examples/usage.json --out core.json.gz --seekable
            """)

        @Argument(help: "Folder of token files (*.json, one token each); or use a registry option.")
        var dir: String?

        @OptionGroup var store: StoreOptions

        @Option(name: .customLong("registry-url"), help: "A running registry, e.g. http://127.0.0.1:8080/.")
        var registryURL: String?

        @Option(name: .customLong("bearer"), help: "Bearer token for --registry-url.")
        var bearer: String?

        @Option(help: "Where to write the pack (- for standard output; the report then goes to standard error).")
        var out: String

        @Option(help: "Usage telemetry (token id → count).")
        var usage: String?

        @Option(name: .customLong("usage-period"),
                help: "Rank by the token_usage events the registry (--db or --postgres) received in this ISO week, such as 2026-W48.")
        var usagePeriod: String?

        @Option(help: "Largest gzip size of the pack, in bytes.")
        var budget = 600_000

        @Option(help: "The app's primitives (X-Primitives); default: the built-ins.")
        var primitives: String?

        @Option(help: "The previous pack, for the size-delta gate.")
        var previous: String?

        @Option(name: .customLong("max-delta"), help: "Largest size change against --previous, in bytes.")
        var maxDelta = 200_000

        @Option(help: "Where to write the manifest (default for registry builds: OUT.manifest.json).")
        var manifest: String?

        @Option(name: .customLong("fallback-screens"), help: "Critical screens for the Fallback Pack, comma-separated.")
        var fallbackScreens: String?

        @Option(name: .customLong("fallback-out"), help: "Where to write the Fallback Pack.")
        var fallbackOut: String?

        @Option(name: .customLong("fallback-flows"),
                help: "Flows for the Fallback Pack, comma-separated: a first run of them works with no network.")
        var fallbackFlows: String?

        @Option(name: .customLong("fallback-theme"),
                help: "A theme file the fallback flows use, put into the Fallback Pack (repeatable).")
        var fallbackTheme: [String] = []

        @Option(name: .customLong("cdn-host"),
                help: "Hosts image URLs may use (repeatable). Without it any host passes; URLs must be HTTPS either way.")
        var cdnHosts: [String] = []

        @Option(help: "gzip level, 0 (store) to 12 (smallest); 1 to 12 with --seekable.")
        var level = 12

        @Flag(help: "Write a seekable pack: several gzip members, each header listing the ids it holds.")
        var seekable = false

        @Option(name: .customLong("member-bytes"),
                help: "With --seekable: the JSON bytes the first member aims at (default 32768); a member ends at a token's end.")
        var memberBytes: Int?

        @Option(name: .customLong("max-member-bytes"),
                help: "With --seekable: the most JSON bytes a later member aims at (default 4194304).")
        var maxMemberBytes: Int?

        @Option(help: "Put the string catalogs of these locales (comma-separated, e.g. de-CH,ar) into the pack and the Fallback Pack, with their fallback chains and the default locale's.")
        var locales: String?

        @Option(help: "With a token folder: the folder of string catalogs (<locale>.json) --locales reads (default: the registry's).")
        var strings: String?

        @Option(name: .customLong("default-locale"), help: "With --strings: the locale that ends every fallback chain (default en).")
        var defaultLocale = "en"

        @Flag(help: "Print one JSON object on stdout (the manifest's totals).")
        var json = false

        /// Every option checked before anything is read or written: standard
        /// output holds the pack or the JSON report, not both; numbers in
        /// range; a Fallback Pack needs somewhere to go; tokens need a source.
        func validate() throws {
            if json && out == "-" {
                throw ValidationError("--json and --out - both use standard output; give --out a file")
            }
            guard (0...12).contains(level) else { throw ValidationError("--level must be between 0 and 12; got \(level)") }
            if seekable && level == 0 {
                throw ValidationError("--level must be between 1 and 12 with --seekable; got 0")
            }
            for (name, value) in [("--member-bytes", memberBytes), ("--max-member-bytes", maxMemberBytes)] {
                guard let value else { continue }
                guard seekable else { throw ValidationError("\(name) needs --seekable") }
                try checkRange(value, in: 1...(64 << 20), name, unit: "bytes")
            }
            guard budget >= 1 else { throw ValidationError("--budget must be at least 1 byte; got \(budget)") }
            guard maxDelta >= 0 else { throw ValidationError("--max-delta must be 0 or more bytes; got \(maxDelta)") }
            if fallbackScreens != nil && fallbackOut == nil {
                throw ValidationError("--fallback-screens needs --fallback-out")
            }
            if (fallbackFlows != nil || !fallbackTheme.isEmpty) && fallbackOut == nil {
                throw ValidationError("--fallback-flows and --fallback-theme need --fallback-out")
            }
            if strings != nil && locales == nil { throw ValidationError("--strings needs --locales") }
            if locales != nil && strings == nil && (dir != nil || registryURL != nil) {
                throw ValidationError("--locales with a token folder or --registry-url needs --strings DIR")
            }
            if dir == nil && registryURL == nil { try store.validateGiven() }
            if usagePeriod != nil {
                if usage != nil { throw ValidationError("give --usage or --usage-period, not both") }
                if dir != nil || registryURL != nil { throw ValidationError("--usage-period reads the registry's store: give --db or --postgres") }
            }
        }

        struct Report: Encodable {
            var out: String
            var tokens: Int
            var candidates: Int
            var compressedBytes: Int
            var rawBytes: Int
            var budgetBytes: Int
            var budgetUsed: Double
            var deltaBytes: Int?
            /// Whether the pack is seekable, and its gzip members (a plain
            /// pack: 1 up to 2 MiB of JSON, a few past that).
            var seekable: Bool
            var members: Int
            /// The hosts image URLs were checked against; empty: any HTTPS host.
            var imageHosts: [String]
        }

        /// What the image-URL check did, for the report.
        var imageCheck: String {
            cdnHosts.isEmpty ? "image URLs checked for HTTPS, any host (give --cdn-host to restrict)"
                : "image URLs checked for HTTPS on " + cdnHosts.joined(separator: ", ")
        }

        func run() async throws {
            try await reportingErrors {
                let map = try primitives.map { try PrimitiveMap.builtIn.merging(PrimitiveMap(parsing: $0)) } ?? .builtIn
                var telemetry = try usage.map { try UsageTelemetry(data: try readFile($0, limit: FileInput.documentLimit), source: inputName($0)) }
                if let usagePeriod {
                    let span = try UsagePeriod(isoWeek: usagePeriod)
                    let counts = try await store.with(readOnly: true) {
                        try await $0.tokenUsage(fromMilliseconds: span.fromMilliseconds, toMilliseconds: span.toMilliseconds)
                    }
                    telemetry = UsageTelemetry(counts: counts, period: span.name)
                }
                var screens: [String: StoredScreen] = [:]
                var byID: [String: PackCandidate] = [:]
                var flows: [String: StoredFlow] = [:]
                var experiments: [StoredExperiment] = []
                var candidates: [PackCandidate] = []
                if let dir {
                    var builder = CorePackBuilder()
                    try builder.addDirectory(URL(fileURLWithPath: dir))
                    if builder.ids.isEmpty { throw SDUIError(.io, "no *.json token files found", input: dir) }
                    candidates = builder.tokens.map { PackCandidate(id: $0.id, version: $0.version, json: $0.json) }
                } else if let registryURL {
                    candidates = try await Self.fetch(registryURL, ids: (telemetry?.counts.keys).map { Array($0).sorted() } ?? [],
                                                      primitives: map, bearer: bearer)
                } else {
                    let contents = try await store.with(readOnly: true) { try await RegistryContents.load($0) }
                    candidates = contents.packCandidates(for: map)
                    screens = contents.screens
                    flows = contents.flows
                    experiments = contents.runningExperiments
                }
                for c in candidates { byID[c.id] = c }
                var planner = CorePackPlanner()
                if let locales {
                    // The catalogs: a folder's, or the registry's stored ones.
                    let wanted = try locales.split(separator: ",").map { try LocaleTag(String($0).trimmingCharacters(in: .whitespaces)).identifier }
                    let (catalogs, fallback): ([String: Data], String)
                    if let strings {
                        let files = try StringFolder.files(URL(fileURLWithPath: strings))   // read once, checked whole
                        let set = try StringFolder.catalog(files, defaultLocale: defaultLocale, source: strings)
                        (catalogs, fallback) = (files, set.defaultLocale)
                    } else {
                        let contents = try await store.with(readOnly: true) { try await RegistryContents.load($0) }
                        guard let d = contents.defaultLocale else {
                            throw SDUIError(.notFound, "the registry has no string catalogs", input: "--locales")
                        }
                        (catalogs, fallback) = (contents.catalogs, d)
                    }
                    for tag in wanted where !(try LocaleTag(tag).chain).contains(where: { catalogs[$0] != nil }) {
                        warn("no catalog on \(tag)'s chain: it falls back to \(fallback)")
                    }
                    planner.strings = StringBundleWriter.bundle(catalogs: catalogs, defaultLocale: fallback, for: wanted)
                }
                planner.budgetBytes = budget
                planner.maxDeltaBytes = maxDelta
                planner.gzipLevel = level
                if seekable {
                    planner.seekable = SeekablePackWriter(memberBytes: memberBytes ?? 0, maxMemberBytes: maxMemberBytes ?? 0,
                                                          level: level, limits: planner.limits)
                }
                planner.imagePolicy = cdnHosts.isEmpty ? .anyHTTPSHost : try ImageURLPolicy(allowedHosts: cdnHosts)
                let previousData = try previous.map { try readFile($0, limit: PackLimits.default.maxCompressedBytes) }
                let build = try planner.build(candidates, usage: telemetry, previous: previousData)
                // The planner opened the pack to verify it; this reads its member count.
                let members = try CorePack(data: build.pack, name: "the built pack").info.members
                try writeFile(build.pack, to: out)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                let manifestData = try encoder.encode(build.manifest)
                if let path = manifest ?? (dir == nil ? out + ".manifest.json" : nil) {
                    try writeFile(manifestData + Data("\n".utf8), to: path)
                }
                if fallbackScreens != nil || fallbackFlows != nil, let fallbackOut {
                    func list(_ text: String?) -> [String] {
                        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    }
                    let ids = list(fallbackScreens), flowIDs = list(fallbackFlows)
                    guard !(screens.isEmpty && flows.isEmpty) else {
                        throw SDUIError(.argument, "a Fallback Pack needs the registry's screens and flows (--db or --postgres)")
                    }
                    let chosen = try flowIDs.map { id -> StoredFlow in
                        guard let f = flows[id] else {
                            throw SDUIError(.notFound, "no flow \"\(id)\" in the registry (it has: "
                                            + flows.keys.sorted().joined(separator: ", ") + ")", input: "--fallback-flows")
                        }
                        return f
                    }
                    // Any form a theme file takes, put in the pack as schemas/theme.json's.
                    let themes = try fallbackTheme.map { path -> (Theme, Data) in
                        let theme = try Theme(document: try readFile(path, limit: FileInput.documentLimit),
                                              fileName: URL(fileURLWithPath: path).lastPathComponent, source: inputName(path))
                        return (theme, Data(theme.jsonValue.jsonText.utf8))
                    }
                    // A theme a flow names but the pack lacks: the flow draws with the app's.
                    let given = Set(themes.map(\.0.id))
                    for f in chosen {
                        let value = try JSONValue(json: f.json, source: "flow \(f.id)")
                        var used = Set([value["themeId"]?.stringValue].compactMap { $0 })
                        for s in value["screens"]?.arrayValue ?? [] { if let t = s["themeId"]?.stringValue { used.insert(t) } }
                        for t in used.subtracting(given).sorted() {
                            warn("flow \(f.id) uses theme \(t), which no --fallback-theme gives: offline it draws with the app's theme")
                        }
                    }
                    try writeFile(try planner.fallbackPack(critical: ids, screens: screens, tokens: { byID[$0] },
                                                           flows: chosen, themes: themes.map(\.1), experiments: experiments,
                                                           strings: planner.strings),
                                  to: fallbackOut)
                    if !json {
                        say("wrote \(fallbackOut): Fallback Pack for " + (ids + flowIDs.map { "flow \($0)" }).joined(separator: ", "))
                    }
                }
                let m = build.manifest
                // The pack went to stdout: the report must not follow it there.
                if out == "-" && !json {
                    warn("wrote the pack to standard output: \(m.tokens.count) of \(m.candidates) tokens, \(m.packBytes) bytes gzipped"
                         + (seekable ? ", seekable: \(members) gzip members" : ""))
                    warn(imageCheck)
                    return
                }
                if json {
                    try printJSON(Report(out: out, tokens: m.tokens.count, candidates: m.candidates,
                                         compressedBytes: m.packBytes, rawBytes: m.rawBytes, budgetBytes: m.budgetBytes,
                                         budgetUsed: m.budgetUsed, deltaBytes: m.deltaBytes, seekable: seekable,
                                         members: members, imageHosts: cdnHosts))
                    return
                }
                say("wrote \(out): \(m.tokens.count) of \(m.candidates) tokens, \(m.packBytes) bytes gzipped "
                      + "(\(String(format: "%.1f", m.budgetUsed * 100))% of \(m.budgetBytes)), \(m.rawBytes) bytes of JSON"
                      + (m.deltaBytes.map { "; \($0 >= 0 ? "+" : "")\($0) bytes against the previous pack" } ?? ""))
                if seekable {
                    print("seekable: \(members) gzip members; \(m.tokens.count) tokens fit the \(m.budgetBytes)-byte budget")
                }
                say(imageCheck)
            }
        }

        /// The best versions of `ids` from a running registry, 50 per request.
        static func fetch(_ base: String, ids: [String], primitives: PrimitiveMap, bearer: String?) async throws -> [PackCandidate] {
            guard let url = URL(string: base.hasSuffix("/") ? base : base + "/") else {
                throw SDUIError(.argument, "not a URL", input: base)
            }
            guard !ids.isEmpty else { throw SDUIError(.argument, "--registry-url needs --usage to know which ids to fetch") }
            let transport = HTTPRegistryTransport(baseURL: url, primitives: primitives.headerValue, bearerToken: bearer)
            var out: [PackCandidate] = []
            var missing: [String] = []
            var start = 0
            while start < ids.count {
                let chunk = Array(ids[start..<min(start + 50, ids.count)])
                start += 50
                let answer: TokenFetchResponse
                do {
                    answer = try await transport.fetch(TokenFetchRequest(ids: chunk))
                } catch let e as SDUIError where e.category == .http && e.message.hasPrefix("HTTP 404") {
                    missing += chunk   // none of these has a version the primitives support
                    continue
                }
                guard case .tokens(let elements, _, let refused) = answer else {
                    throw SDUIError(.http, "unexpected 304", input: base)
                }
                for e in refused { printError(e) }
                guard refused.isEmpty else {
                    throw SDUIError(.schema, "the registry's answer held \(refused.count) token(s) this build refuses",
                                    input: base)
                }
                var got = Set<String>()
                for e in elements {
                    guard e.first == UInt8(ascii: "{") else {
                        throw SDUIError(.signature, "the registry signs its tokens; build from its database instead", input: base)
                    }
                    let t = try DesignToken(json: e, source: base)
                    out.append(PackCandidate(id: t.id, version: t.version, json: e))
                    got.insert(t.id)
                }
                missing += chunk.filter { !got.contains($0) }
            }
            if !missing.isEmpty {
                warn("warning: the registry serves no version of \(missing.count) id(s) "
                     + "from the usage file for these primitives: \(missing.prefix(20).joined(separator: ", "))"
                     + (missing.count > 20 ? ", …" : ""))
            }
            return out
        }
    }
}
#endif
