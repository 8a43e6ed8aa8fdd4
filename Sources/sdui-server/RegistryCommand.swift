// RegistryCommand.swift - `sdui registry import|list|token|migrate` and the options every registry command shares.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUICLI
import SDUIServer

/// A logger that prints warnings and worse.
func quietLogger(_ label: String) -> Logger {
    var l = Logger(label: label)
    l.logLevel = .warning
    return l
}

struct RegistryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registry",
        abstract: "Publish to and read the token registry (SQLite or PostgreSQL).",
        discussion: """
        Example:
          sdui registry import Examples --db registry.db && sdui registry list --db registry.db
        """,
        subcommands: [Import.self, List.self, Token.self, Migrate.self, Usage.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Check and publish tokens, screens, flows and experiments from a folder (tokens/, screens/, flows/, experiments/) or a pack.",
            discussion: """
            Refuses the whole import when any token breaks a rule — over 32 KB, an image URL that is \
            not HTTPS on a --cdn-host, the design-token schema, a bad id — naming each token and rule. \
            A token version already published with the same JSON is skipped; with other JSON it is an \
            error (publish a higher version instead). An experiment must name only screens and tokens \
            the import or the registry has; with --supported (repeatable), the X-Primitives of each \
            app version supported, each variation must be renderable by at least one. Each fault \
            names the file and the JSON path.

            Examples:
              sdui registry import Examples --db registry.db
              sdui pack build Examples/tokens --out - | sdui registry import - --db registry.db --json
            """)

        @Argument(help: "A folder (Examples/ layout, or token files) or a Core-Token Pack (- for standard input).")
        var source: String

        @OptionGroup var store: StoreOptions

        @OptionGroup var output: OutputOptions

        @Option(name: .customLong("cdn-host"), help: "Hosts image URLs may use (repeatable).")
        var cdnHosts: [String] = ["cdn.sdui.example.com"]

        @Option(help: "The X-Primitives of a supported app version (repeatable): each experiment variation must suit one.")
        var supported: [String] = []

        /// A store must be named; otherwise a usage error with this command's usage.
        func validate() throws { try store.validateGiven() }

        func run() async throws {
            try await reportingErrors {
                let apps = try supported.map { value in
                    do { return try PrimitiveMap(parsing: value) } catch let e as SDUIError {
                        throw SDUIError(.argument, e.message, input: "--supported")
                    }
                }
                let importer = RegistryImporter(imagePolicy: try ImageURLPolicy(allowedHosts: cdnHosts), supportedApps: apps)
                // `-`: a pack on standard input, read whole (bounded) and opened from memory.
                let pack = source == "-"
                    ? try CorePack(data: try readFile(source, limit: PackLimits.default.maxCompressedBytes),
                                   name: inputName(source))
                    : nil
                let r = try await store.with { s in
                    if let pack { return try await importer.importInto(s, pack: pack, name: inputName(source)) }
                    return try await importer.importInto(s, from: URL(fileURLWithPath: source))
                }
                for w in r.warnings { warn("warning: \(w)") }
                if output.json {
                    struct Report: Encodable { var added, skipped, screens, flows, experiments: Int }
                    try printJSON(Report(added: r.added, skipped: r.skipped, screens: r.screens, flows: r.flows,
                                         experiments: r.experiments))
                } else {
                    print("published \(r.added) new token version(s), \(r.skipped) already there; \(r.screens) screen(s), "
                          + "\(r.flows) flow(s), \(r.experiments) experiment(s)")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List token ids, their versions, and the screens.",
            discussion: """
            Examples:
              sdui registry list --db registry.db
              sdui registry list --postgres postgres://127.0.0.1/sdui --json
            """)

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print one JSON object on stdout.")
        var json = false

        /// A store must be named; otherwise a usage error with this command's usage.
        func validate() throws { try store.validateGiven() }

        struct Row: Encodable {
            var id: String
            var versions: [Int]
            var primitiveVersion: Int
            var bytes: Int
        }

        struct Screen: Encodable {
            var id: String
            var fallbackScreenId: String?
        }

        func run() async throws {
            try await reportingErrors {
                let contents = try await store.with(readOnly: true) { try await RegistryContents.load($0) }
                let rows = contents.ids.map { id -> Row in
                    let v = contents.versions(of: id)
                    return Row(id: id, versions: v.map(\.version), primitiveVersion: v[0].primitiveVersion, bytes: v[0].json.count)
                }
                let screens = contents.screens.values.sorted { $0.id < $1.id }
                    .map { Screen(id: $0.id, fallbackScreenId: $0.fallbackScreenID) }
                if json {
                    struct Out: Encodable { var generation: Int64; var tokens: [Row]; var screens: [Screen] }
                    try printJSON(Out(generation: contents.generation, tokens: rows, screens: screens))
                    return
                }
                // Columns as wide as their widest value: ids and version lists are never cut.
                let versionText = rows.map { $0.versions.map(String.init).joined(separator: ",") }
                let idWidth = max(31, rows.map(\.id.count).max() ?? 0) + 1
                let versionWidth = max(9, versionText.map(\.count).max() ?? 0) + 1
                func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
                print(pad("token", idWidth) + pad("versions", versionWidth) + "   bytes")
                for (r, v) in zip(rows, versionText) {
                    say(pad(r.id, idWidth) + pad(v, versionWidth) + String(format: "%8d", r.bytes))
                }
                let versions = rows.reduce(0) { $0 + $1.versions.count }
                let names: [String] = screens.map { s in
                    if let f = s.fallbackScreenId { return "\(s.id) (fallback \(f))" }
                    return s.id
                }
                say("\(rows.count) token(s), \(versions) version(s); \(screens.count) screen(s): "
                      + names.joined(separator: ", "))
            }
        }
    }

    struct Usage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "usage",
            abstract: "Count how often each token was shown in a period: the usage file the pack builder ranks by.",
            discussion: """
            Aggregates the token_usage events the registry received (POST /events) whose client \
            timestamp lies in the period, in the database (one grouped query), into an sdui-usage/1 \
            file: {"format": "sdui-usage/1", "period": "2026-W48", "counts": {"token_id": n, …}}. \
            The period is an ISO week (UTC, Monday to Sunday) or --from/--to days (UTC, both included).

            Examples:
              sdui registry usage --db registry.db --period 2026-W48 --out usage.json
              sdui registry usage --postgres postgres://127.0.0.1/sdui --from 2026-11-01 --to 2026-11-30
            """)

        @OptionGroup var store: StoreOptions

        @Option(help: "An ISO week, such as 2026-W48.")
        var period: String?

        @Option(help: "The first day, YYYY-MM-DD (with --to).")
        var from: String?

        @Option(help: "The last day, YYYY-MM-DD, included (with --from).")
        var to: String?

        @Option(help: "Where to write the file (default: standard output).")
        var out: String?

        @OptionGroup var output: OutputOptions

        /// A store, and either --period or both --from and --to.
        func validate() throws {
            try store.validateGiven()
            switch (period, from, to) {
            case (_?, nil, nil), (nil, _?, _?): break
            case (_?, _, _): throw ValidationError("give --period or --from/--to, not both")
            default: throw ValidationError("give --period (an ISO week such as 2026-W48) or both --from and --to")
            }
        }

        /// The period the options name.
        static func period(_ week: String?, from: String?, to: String?) throws -> UsagePeriod {
            if let week { return try UsagePeriod(isoWeek: week) }
            return try UsagePeriod(fromDay: from ?? "", toDay: to ?? "")
        }

        func run() async throws {
            try await reportingErrors {
                let span = try Self.period(period, from: from, to: to)
                let counts = try await store.with(readOnly: true) {
                    try await $0.tokenUsage(fromMilliseconds: span.fromMilliseconds, toMilliseconds: span.toMilliseconds)
                }
                let data = UsageTelemetry(counts: counts, period: span.name).json
                if let out {
                    try writeFile(data, to: out)
                    let shown = counts.values.reduce(0, +)
                    if output.json {
                        struct Report: Encodable { var out: String; var period: String; var tokens: Int; var shown: Int }
                        try printJSON(Report(out: out, period: span.name, tokens: counts.count, shown: shown))
                    } else {
                        say("\(counts.count) token(s), \(shown) showing(s) in \(span.name) → \(out)")
                    }
                } else {
                    FileHandle.standardOutput.write(data)
                }
            }
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Print a bearer access token (JWT, at most one hour) for a server started with --access-key.",
            discussion: """
            Example:
              sdui registry token --access-key access.key --subject ci --ttl 600
            """)

        @Option(name: .customLong("access-key"), help: "The key file the server verifies with.")
        var accessKey: String

        @Option(help: "The token's subject.")
        var subject = "sdui-client"

        @Option(help: "Lifetime in seconds (at most 3600).")
        var ttl = 3600

        @OptionGroup var output: OutputOptions

        /// Access tokens live at most an hour (the server refuses longer).
        func validate() throws { try checkRange(ttl, in: 1...3600, "--ttl", unit: "seconds") }

        func run() throws {
            try reportingErrors {
                let token = try AccessTokenIssuer(signer: try KeyFile.signer(accessKey)).issue(subject: subject, lifetime: TimeInterval(ttl))
                if output.json {
                    struct Report: Encodable { var token: String; var subject: String; var expiresIn: Int }
                    try printJSON(Report(token: token, subject: subject, expiresIn: ttl))
                } else {
                    print(token)
                }
            }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Create the registry's tables, or upgrade them to this build's schema, and exit.",
            discussion: """
            The one step that needs DDL rights (CREATE, ALTER): run it once per upgrade, as a role that \
            has them, and start the servers with `sdui serve --no-migrate` as a role that has not. It is \
            idempotent; servers migrating at once take turns. A schema newer than this build's is refused, \
            and nothing is changed. SDUI_DB and SDUI_POSTGRES_URL name the store as for `sdui serve`.

            Examples:
              sdui registry migrate --db registry.db
              SDUI_POSTGRES_URL='postgres://owner@db/sdui?sslmode=verify-full' sdui registry migrate
            """)

        @OptionGroup var store: StoreOptions

        @OptionGroup var output: OutputOptions

        /// A store must be named (options or variables); otherwise a usage error with this command's usage.
        func validate() throws {
            _ = try ServeEnvironment(values: ProcessInfo.processInfo.environment).store(store)
        }

        func run() async throws {
            try await reportingErrors {
                let s = try ServeEnvironment(values: ProcessInfo.processInfo.environment).store(store)
                try await s.with { _ in }   // opening for writing migrates
                if output.json {
                    struct Report: Encodable { var schemaVersion: Int }
                    try printJSON(Report(schemaVersion: Int(RegistrySchema.version)))
                } else {
                    print("the registry's tables are at schema version \(RegistrySchema.version)")
                }
            }
        }
    }
}
#endif
