// ServeCommand.swift - `sdui serve`: the registry server, configured by options or SDUI_ environment variables.
#if Server
import ArgumentParser
import Foundation
import Logging
import SDUI
import SDUICLI
import SDUIServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve /screens/{id}, /design-tokens, /flows/{id}, /events, /metrics and /health from the registry.",
        discussion: """
        Every option can also be set by an environment variable: SDUI_ and the option's name in capitals, \
        dashes as underscores (--max-age is SDUI_MAX_AGE, --no-migrate is SDUI_NO_MIGRATE), except \
        --postgres, which is SDUI_POSTGRES_URL. An option given on the command line wins over its variable. \
        A flag's variable turns it on with 1, true, yes or on, and leaves it off with 0, false, no, off or \
        nothing. A bad value is an error naming the variable. The variables: \
        \(ServeEnvironment.names.sorted { $0.key < $1.key }.map(\.value).joined(separator: ", ")).

        PostgreSQL over TLS is set in the URL, with libpq's names: ?sslmode=disable (the default), prefer, \
        require (encrypted, not verified), verify-ca or verify-full, and sslrootcert=FILE (PEM roots; \
        system for the system's). --no-migrate issues no DDL: it checks that the tables are at this \
        build's schema version and stops with an error naming `sdui registry migrate` when they are not, \
        so replicas can run as a role without DDL rights.

        Examples:
          sdui serve --db registry.db --port 8080
          SDUI_POSTGRES_URL='postgres://sdui@db:5432/sdui?sslmode=verify-full&sslrootcert=/etc/sdui/db-ca.pem' \\
            SDUI_LOG_FORMAT=json sdui serve --host 0.0.0.0 --no-migrate
        """)

    @OptionGroup var store: StoreOptions

    @OptionGroup var output: OutputOptions

    @Option(help: "Address to listen on (default 127.0.0.1; SDUI_HOST).")
    var host: String?

    @Option(help: "Port, 0 for a free one (default 8080; SDUI_PORT).")
    var port: Int?

    @Option(name: .customLong("signing-key"),
            help: "Sign served tokens with this key, an HS256 secret or JWK file (SDUI_SIGNING_KEY).")
    var signingKey: String?

    @Option(name: .customLong("access-key"), help: "Require bearer JWTs verified with this key file (SDUI_ACCESS_KEY).")
    var accessKey: String?

    @Option(name: .customLong("max-age"), help: "Cache-Control max-age in seconds (default 86400; SDUI_MAX_AGE).")
    var maxAge: Int?

    @Option(name: .customLong("refresh-ms"),
            help: "How often to look for newly published rows, in ms (default 1000; SDUI_REFRESH_MS).")
    var refreshMs: Int?

    @Option(name: .customLong("idle-timeout"),
            help: "Seconds before an idle connection is closed (default 60; SDUI_IDLE_TIMEOUT).")
    var idleTimeout: Int?

    @Option(name: .customLong("max-connections"),
            help: "Most connections open at once; more wait until one closes (default: what ulimit -n allows; SDUI_MAX_CONNECTIONS).")
    var maxConnections: Int?

    @Option(name: .customLong("request-timeout"),
            help: "Seconds a request, head and body, may take to arrive from its first byte; then 408 (default 30; SDUI_REQUEST_TIMEOUT).")
    var requestTimeout: Int?

    @Option(name: .customLong("min-request-rate"),
            help: "Bytes a second a request must average once the grace has passed, 0 for no rate check; then 408 (default 1024; SDUI_MIN_REQUEST_RATE).")
    var minRequestRate: Int?

    @Option(name: .customLong("request-rate-grace"),
            help: "Seconds a request may take before --min-request-rate applies (default 5; SDUI_REQUEST_RATE_GRACE).")
    var requestRateGrace: Int?

    @Option(name: .customLong("event-max-age"),
            help: "Days an analytics event is kept after it arrived, or off (default 90; SDUI_EVENT_MAX_AGE).")
    var eventMaxAge: String?

    @Option(name: .customLong("event-max-count"),
            help: "Most analytics events kept, the newest, or off (default 10000000; SDUI_EVENT_MAX_COUNT).")
    var eventMaxCount: String?

    @Option(name: .customLong("event-prune-interval"),
            help: "Seconds between two applications of the event retention (default 600; SDUI_EVENT_PRUNE_INTERVAL).")
    var eventPruneInterval: Int?

    @Option(name: .customLong("log-level"),
            help: "trace, debug, info, notice, warning, error or critical (default info; SDUI_LOG_LEVEL).")
    var logLevel: String?

    @Option(name: .customLong("log-format"), help: "text or json, one JSON object a line (default text; SDUI_LOG_FORMAT).")
    var logFormat: String?

    @Flag(name: .customLong("log-requests"), help: "Log one line per request at the --log-level (SDUI_LOG_REQUESTS).")
    var logRequests = false

    @Flag(name: .customLong("no-migrate"),
          help: "Issue no DDL: check the schema instead of creating or upgrading it (SDUI_NO_MIGRATE).")
    var noMigrate = false

    /// Every setting in range before anything starts; a bad one is a usage
    /// error that names the option or the variable (and prints this
    /// command's usage).
    func validate() throws {
        _ = try settings()
    }

    /// The settings: each option, else its variable, else its default.
    func settings(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServeSettings {
        let env = ServeEnvironment(values: environment)
        var s = ServeSettings()
        s.store = try env.store(store)
        _ = try env.flag(output.json, "--json")  // a bad SDUI_JSON is refused like any other
        s.host = env.string(host, "--host") ?? "127.0.0.1"
        s.port = try env.int(port, "--port", in: 0...65_535) ?? 8080
        s.signingKey = env.string(signingKey, "--signing-key")
        s.accessKey = env.string(accessKey, "--access-key")
        s.maxAge = try env.int(maxAge, "--max-age", in: 0...31_536_000, unit: "seconds (at most a year)") ?? 86_400
        s.refreshMs = try env.int(refreshMs, "--refresh-ms", in: 10...3_600_000, unit: "milliseconds") ?? 1000
        s.idleTimeout = try env.int(idleTimeout, "--idle-timeout", in: 1...86_400, unit: "seconds") ?? 60
        s.maxConnections = try env.int(maxConnections, "--max-connections", in: 1...Int.max)
        s.requestTimeout = try env.int(requestTimeout, "--request-timeout", in: 1...3600, unit: "seconds") ?? 30
        s.minRequestRate = try env.int(minRequestRate, "--min-request-rate", in: 0...1 << 30, unit: "bytes a second") ?? 1024
        s.requestRateGrace = try env.int(requestRateGrace, "--request-rate-grace", in: 0...3600, unit: "seconds") ?? 5
        s.eventMaxAgeDays = try env.bound(eventMaxAge, "--event-max-age", in: 1...36_500, unit: "days", default: 90)
        s.eventMaxCount = try env.bound(eventMaxCount, "--event-max-count", in: 1...Int.max, unit: "events",
                                        default: 10_000_000)
        s.eventPruneInterval = try env.int(eventPruneInterval, "--event-prune-interval", in: 1...86_400 * 7,
                                           unit: "seconds") ?? 600
        let level = env.string(logLevel, "--log-level") ?? "info"
        guard let parsedLevel = Logger.Level(rawValue: level) else {
            throw ValidationError("\(env.source(logLevel, "--log-level")) must be one of "
                                  + Logger.Level.allCases.map(\.rawValue).joined(separator: ", ") + "; got \(level)")
        }
        s.logLevel = parsedLevel
        let format = env.string(logFormat, "--log-format") ?? "text"
        guard let parsedFormat = LogFormat(rawValue: format) else {
            throw ValidationError("\(env.source(logFormat, "--log-format")) must be text or json; got \(format)")
        }
        s.logFormat = parsedFormat
        s.logRequests = try env.flag(logRequests, "--log-requests")
        s.noMigrate = try env.flag(noMigrate, "--no-migrate")
        return s
    }

    func run() async throws {
        let s = try settings()
        // The command owns its process: every logger in it, the store's too, writes these lines.
        let format = s.logFormat
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, format: format) }
        try await reportingErrors {
            var c = RegistryServerConfiguration()
            c.host = s.host
            c.port = s.port
            c.maxAge = s.maxAge
            c.refreshInterval = .milliseconds(s.refreshMs)
            c.idleTimeout = .seconds(s.idleTimeout)
            c.maxConnections = s.maxConnections
            c.requestTimeout = .seconds(s.requestTimeout)
            c.minRequestBytesPerSecond = s.minRequestRate
            c.requestRateGrace = .seconds(s.requestRateGrace)
            c.eventRetention = EventRetention(maxAge: s.eventMaxAgeDays.map { .seconds($0 * 86_400) },
                                              maxCount: s.eventMaxCount, interval: .seconds(s.eventPruneInterval))
            c.migrate = !s.noMigrate
            // The command owns its process: SIGTERM and SIGINT stop it gracefully.
            c.gracefulShutdownSignals = [.sigterm, .sigint]
            if let signingKey = s.signingKey { c.signer = try KeyFile.signer(signingKey) }
            if let accessKey = s.accessKey { c.access = AccessTokenVerifier(verifier: try KeyFile.verifier(accessKey)) }
            var logger = Logger(label: "sdui.server")
            logger.logLevel = s.logLevel
            if s.logRequests { c.requestLogLevel = s.logLevel }
            let host = c.host
            let registry = try await s.store.openForServing(migrate: !s.noMigrate)
            try await registry.closing {
                let server = RegistryServer(store: registry, configuration: c, logger: logger)
                try await server.run { port in
                    // Always said, whatever the level: in JSON logs as a line of its own.
                    let said = "sdui serve: listening on http://\(host):\(port)/"
                    let line = format == .json
                        ? LineLogHandler.line(format: .json, time: Date(), level: .notice, label: "sdui.serve", message: said,
                                              source: "sdui", metadata: [:])
                        : said
                    FileHandle.standardError.write(Data((line + "\n").utf8))
                }
            }
        }
    }
}

/// What `sdui serve` runs with, once options, variables and defaults are
/// resolved.
struct ServeSettings {
    var store = StoreOptions()
    var host = "127.0.0.1"
    var port = 8080
    var signingKey: String?
    var accessKey: String?
    var maxAge = 86_400
    var refreshMs = 1000
    var idleTimeout = 60
    var maxConnections: Int?
    var requestTimeout = 30
    var minRequestRate = 1024
    var requestRateGrace = 5
    var eventMaxAgeDays: Int? = 90
    var eventMaxCount: Int? = 10_000_000
    var eventPruneInterval = 600
    var logLevel = Logger.Level.info
    var logFormat = LogFormat.text
    var logRequests = false
    var noMigrate = false
}

/// The environment variables of `sdui serve`: one per option, named
/// `SDUI_` and the option in capitals (`--max-age`: `SDUI_MAX_AGE`), but
/// `--postgres`, which is `SDUI_POSTGRES_URL` as for every registry
/// command.  An option given wins over its variable.
struct ServeEnvironment {
    /// The variable of each option.
    static let names: [String: String] = Dictionary(uniqueKeysWithValues: [
        "--db", "--host", "--port", "--signing-key", "--access-key", "--max-age", "--refresh-ms", "--idle-timeout",
        "--max-connections", "--request-timeout", "--min-request-rate", "--request-rate-grace", "--event-max-age",
        "--event-max-count", "--event-prune-interval", "--log-level", "--log-format", "--log-requests", "--no-migrate",
        "--json",
    ].map { ($0, variable(for: $0)) } + [("--postgres", "SDUI_POSTGRES_URL")])

    /// `--max-age` → `SDUI_MAX_AGE`.
    static func variable(for option: String) -> String {
        "SDUI_" + option.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
    }

    let values: [String: String]

    /// The variable's value for `option`; an empty one counts as unset.
    func value(_ option: String) -> String? {
        guard let name = Self.names[option], let v = values[name], !v.isEmpty else { return nil }
        return v
    }

    /// How an error names where a value came from: the option, or its variable.
    func source<T>(_ given: T?, _ option: String) -> String {
        given != nil || value(option) == nil ? option : "\(Self.names[option] ?? option) (from the environment)"
    }

    func string(_ given: String?, _ option: String) -> String? { given ?? value(option) }

    /// An integer in `range`: the option's, else the variable's.
    func int(_ given: Int?, _ option: String, in range: ClosedRange<Int>, unit: String = "") throws -> Int? {
        let name = source(given, option)
        let number: Int
        if let given {
            number = given
        } else if let text = value(option) {
            guard let n = Int(text) else { throw ValidationError("\(name) must be an integer; got \(text)") }
            number = n
        } else {
            return nil
        }
        try check(number, in: range, name, unit: unit)
        return number
    }

    /// `checkRange`, but "at least N" for a range without a real top.
    func check(_ n: Int, in range: ClosedRange<Int>, _ name: String, unit: String) throws {
        guard range.upperBound == .max else { return try checkRange(n, in: range, name, unit: unit) }
        guard n >= range.lowerBound else { throw ValidationError("\(name) must be at least \(range.lowerBound); got \(n)") }
    }

    /// A bound that may be `off` (nil); `fallback` when neither is set.
    func bound(_ given: String?, _ option: String, in range: ClosedRange<Int>, unit: String, default fallback: Int) throws -> Int? {
        let name = source(given, option)
        guard let text = given ?? value(option) else { return fallback }
        if text == "off" { return nil }
        guard let n = Int(text) else { throw ValidationError("\(name) must be a number of \(unit) or off; got \(text)") }
        try check(n, in: range, name, unit: unit)
        return n
    }

    /// A flag: on when given, else as its variable says.
    func flag(_ given: Bool, _ option: String) throws -> Bool {
        if given { return true }
        guard let text = value(option)?.lowercased() else { return false }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ValidationError("\(Self.names[option] ?? option) must be 1, true, yes, on, 0, false, no or off; got \(text)")
        }
    }

    /// Whether `SDUI_JSON` asks `sdui serve` for JSON errors.  Read before
    /// the command line is parsed (a usage error is JSON too), so a value
    /// that is not a flag's counts as off here and is refused by
    /// ``ServeCommand/settings(_:)``.
    static func wantsJSON(_ arguments: [String], _ environment: [String: String]) -> Bool {
        guard arguments.first == "serve" else { return false }
        return (try? ServeEnvironment(values: environment).flag(false, "--json")) == true
    }

    /// The store options with `--db` from `SDUI_DB` when neither `--db`
    /// nor `--postgres` was given (`SDUI_POSTGRES_URL` is read by the
    /// store options themselves); both variables at once are an error.
    func store(_ given: StoreOptions) throws -> StoreOptions {
        var s = given
        if s.db == nil, s.postgres == nil, let db = value("--db") {
            if value("--postgres") != nil {
                throw ValidationError("SDUI_DB and SDUI_POSTGRES_URL are both set; set one, or give --db or --postgres")
            }
            s.db = db
        }
        try s.validateGiven()
        return s
    }
}
#endif
