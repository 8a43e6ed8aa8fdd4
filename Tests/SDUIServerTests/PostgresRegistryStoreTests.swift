// PostgresRegistryStoreTests.swift - what is particular to the PostgreSQL store: URLs, schemas, TLS, an unreachable server.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import Logging
import PostgresNIO
import ServiceLifecycle
import SDUITestSupport
import Testing

@Suite struct PostgresRegistryStoreTests {
    @Test func requireTLSIsAccepted() async throws {
        let store = try PostgresRegistryStore(url: "postgres://u:p@127.0.0.1:1/d?sslmode=require")
        try await store.close()
    }

    @Test func badPostgresURLsAndSchemasAreErrors() {
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "mysql://x@y/z") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d", schema: "a; DROP") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d", schema: "Upper") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d?sslmode=verify-all") }
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d?application_name=x") }
        // The designated initializer checks the schema too: it is spliced into CREATE SCHEMA.
        let config = PostgresClient.Configuration(host: "h", username: "u", password: nil, database: "d", tls: .disable)
        #expect(throws: RegistryError.self) {
            try PostgresRegistryStore(configuration: config, name: "h", schema: "x; DROP TABLE design_tokens")
        }
    }

    @Test func unreachablePostgresIsAStoreError() async throws {
        let store = try PostgresRegistryStore(url: "postgres://nobody:x@127.0.0.1:1/none", startupTimeout: .seconds(2))
        do {
            try await store.migrate()
            Issue.record("reached a server on port 1")
        } catch let e as RegistryError {
            #expect(e.code == .store && e.subject == "127.0.0.1:1/none")
        }
        try await store.close()
    }
}

extension PostgresRegistryStoreTests {
    /// In a service, the store's client runs in the host's ServiceGroup
    /// (structured), beside the server that uses it, and stops with it.
    @Test func theClientRunsInTheHostsGroup() async throws {
        guard let url = ProcessInfo.processInfo.environment["SDUI_TEST_POSTGRES_URL"] else {
            Issue.record(PostgresUnavailable())
            return
        }
        var quiet = Logger(label: "host")
        quiet.logLevel = .critical
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try PostgresRegistryStore(url: url, schema: schema, startsClient: false, logger: quiet)
        var c = RegistryServerConfiguration()
        c.port = 0
        let server = RegistryServer(store: store, configuration: c, logger: quiet)
        let group = ServiceGroup(services: [store, server], logger: quiet)
        let running = Task { try await group.run() }
        // run() migrated the store through the group's client and loaded the snapshot.
        var ready = false
        for _ in 0..<500 where !ready {
            ready = (try? await store.generation()) != nil && server.staleness().stale == false
            if !ready { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(ready)
        try await store.publish([stored("pg-in-group")])
        #expect(try await store.generation() >= 1)
        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// Runs `openssl` with `args` in `dir`.
    static func openssl(_ args: [String], in dir: URL) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["openssl"] + args
        p.currentDirectoryURL = dir
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "openssl \(args)")
    }

    /// libpq's sslmode names, read without a server: what each verifies,
    /// where the roots come from, and an error naming the URL (its
    /// password hidden) for a mode that is not one, `allow`, a root file
    /// that is missing or holds no certificate, and `sslrootcert` where it
    /// would do nothing.
    @Test func sslModesAreReadAsLibpqNamesThem() throws {
        let dir = Fixtures.temporaryDirectory()
        try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=t",
                          "-keyout", "ca.key", "-out", "ca.pem"], in: dir)
        let ca = dir.appendingPathComponent("ca.pem").path
        let garbage = dir.appendingPathComponent("garbage.pem")
        try Data("not a certificate\n".utf8).write(to: garbage)
        let base = "postgres://u:secret@db.example:6543/d"
        let modes: [(String, PostgresURL.SSLMode, CertificateVerification, PostgresURL.RootCertificates?)] = [
            ("", .disable, .none, nil),
            ("?sslmode=disable", .disable, .none, nil),
            ("?sslmode=prefer", .prefer, .none, nil),
            ("?sslmode=require", .require, .none, nil),
            ("?sslmode=require&sslrootcert=\(ca)", .require, .noHostnameVerification, .file(ca)),
            ("?sslmode=verify-ca", .verifyCA, .noHostnameVerification, .system),
            ("?sslmode=verify-ca&sslrootcert=\(ca)", .verifyCA, .noHostnameVerification, .file(ca)),
            ("?sslmode=verify-full", .verifyFull, .fullVerification, .system),
            ("?sslmode=verify-full&sslrootcert=system", .verifyFull, .fullVerification, .system),
            ("?sslrootcert=\(ca)&sslmode=verify-full", .verifyFull, .fullVerification, .file(ca)),
        ]
        for (query, mode, verification, roots) in modes {
            let u = try PostgresURL(base + query)
            #expect(u.sslMode == mode && u.certificateVerification == verification && u.roots == roots, "\(query)")
            #expect(u.host == "db.example" && u.port == 6543 && u.user == "u" && u.database == "d" && u.name == "db.example:6543/d")
            _ = try u.connectionConfiguration()
            _ = try PostgresRegistryStore(url: base + query)
        }
        let refused: [(String, String)] = [
            ("?sslmode=verify-all", "sslmode=verify-all is not one of disable, prefer, require, verify-ca, verify-full"),
            ("?sslmode=allow", "sslmode=allow (plain first, TLS only when refused) is not supported"),
            ("?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", #"sslrootcert "/nonexistent/ca.pem": no such file"#),
            ("?sslmode=verify-ca&sslrootcert=\(garbage.path)", "holds no PEM certificate"),
            ("?sslmode=disable&sslrootcert=\(ca)", "sslrootcert is used by sslmode=require, verify-ca and verify-full, not disable"),
            ("?sslmode=prefer&sslrootcert=\(ca)", "not prefer"),
            ("?sslmode=verify-full&sslrootcert=", "sslrootcert needs a file"),
            ("?sslcert=x", "unsupported URL parameter sslcert"),
        ]
        for (query, says) in refused {
            do {
                _ = try PostgresURL(base + query)
                Issue.record("accepted \(query)")
            } catch let e as RegistryError {
                #expect(e.code == .invalid && e.message.contains(says), "\(query): \(e)")
                #expect(e.subject?.contains("u:***@db.example") == true && !(e.description.contains("secret")), "\(e)")
            }
        }
    }

    /// Against a PostgreSQL of its own with TLS on and plain connections
    /// refused (`scripts/postgres.sh --tls`: a CA, a server certificate it
    /// signed for localhost and 127.0.0.1, the server also on 127.0.0.2),
    /// each mode connects, or fails saying why, as libpq's does.
    /// The pruning lock belongs to the store's schema: while a server of
    /// one registry holds it, another server on the same tables skips its
    /// pass, and a registry in another schema of the database prunes.
    @Test func thePruningLockIsTheSchemas() async throws {
        guard let url = ProcessInfo.processInfo.environment["SDUI_TEST_POSTGRES_URL"] else {
            Issue.record(PostgresUnavailable())
            return
        }
        func schema() -> String { "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }
        let shared = schema(), other = schema()
        let holder = try PostgresRegistryStore(url: url, schema: shared)
        let sameTables = try PostgresRegistryStore(url: url, schema: shared)
        let otherTables = try PostgresRegistryStore(url: url, schema: other)
        let stores = [holder, sameTables, otherTables]
        for store in stores { try await store.migrate() }
        let event = StoredEvent(id: "e", name: "n", flowID: "f", userID: "u", timestamp: 0, json: Data("{}".utf8))
        for store in stores { _ = try await store.storeEvents([event]) }
        let quiet = Logger(label: "lock")
        try await holder.client.withConnection { c in
            try await c.query("BEGIN", logger: quiet)
            var held = false
            for try await got in try await c.query(PostgresRegistryStore.pruneLockSQL, logger: quiet)
                .decode(Bool.self) { held = got }
            #expect(held)
            #expect(try await sameTables.pruneEvents(receivedBefore: nil, keepingNewest: 0) == 0)
            #expect(try await otherTables.pruneEvents(receivedBefore: nil, keepingNewest: 0) == 1)
            try await c.query("COMMIT", logger: quiet)
        }
        #expect(try await sameTables.events(limit: 10).count == 1, "skipped while the lock was held")
        #expect(try await sameTables.pruneEvents(receivedBefore: nil, keepingNewest: 0) == 1)
        #expect(try await otherTables.events(limit: 10).isEmpty)
        for store in stores { try await store.close() }
    }

    @Test func tlsModesAgainstAServerWithTLS() async throws {
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/postgres.sh").path
        // Output to a file, not a pipe: the server it starts inherits the
        // descriptor, and a pipe would not end while the server runs.
        func run(_ args: [String]) throws -> String {
            let out = Fixtures.temporaryDirectory().appendingPathComponent("out.txt")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = [script] + args
            p.standardOutput = try FileHandle(forWritingTo: out)
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "postgres.sh \(args)")
            return try String(contentsOf: out, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let started = try run(["--tls"]).split(separator: " ").map(String.init)
        try #require(started.count == 2, "postgres.sh --tls printed \(started)")
        let dir = started[1]
        defer { _ = try? run(["--tls-stop", dir]) }
        let port = try #require(URLComponents(string: started[0])?.port)
        let ca = dir + "/ca.pem", other = dir + "/other-ca.pem"
        var quiet = Logger(label: "tls")
        quiet.logLevel = .critical
        /// nil when the store migrated over TLS; otherwise why it failed.
        func attempt(_ host: String, _ query: String) async throws -> String? {
            let store = try PostgresRegistryStore(url: "postgres://sdui:sdui@\(host):\(port)/sdui_test?\(query)",
                                                  startupTimeout: .seconds(15), logger: quiet)
            defer { Task { try? await store.close() } }
            do {
                try await store.migrate()
            } catch let e as RegistryError {
                return e.message
            }
            var encrypted = false
            for try await ssl in try await store.client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                                                                logger: quiet).decode(Bool.self) { encrypted = ssl }
            return encrypted ? nil : "connected without TLS"
        }
        let works: [(String, String)] = [
            ("127.0.0.1", "sslmode=prefer"),
            ("127.0.0.1", "sslmode=require"),   // not verified: a CA the system does not know is fine
            ("127.0.0.1", "sslmode=verify-ca&sslrootcert=\(ca)"),
            ("127.0.0.2", "sslmode=verify-ca&sslrootcert=\(ca)"),   // the name is not checked
            ("localhost", "sslmode=verify-full&sslrootcert=\(ca)"),
            ("127.0.0.1", "sslmode=verify-full&sslrootcert=\(ca)"),   // the IP address is in the certificate
            ("localhost", "sslmode=require&sslrootcert=\(ca)"),
        ]
        for (host, query) in works {
            let failed = try await attempt(host, query)
            #expect(failed == nil, "\(host) \(query): \(failed ?? "")")
        }
        let fails: [(String, String, String)] = [
            ("127.0.0.1", "sslmode=disable", "no encryption"),   // the server's pg_hba refuses plain connections
            ("127.0.0.2", "sslmode=verify-full&sslrootcert=\(ca)", "failedToValidateHostname"),   // not in the certificate
            ("localhost", "sslmode=verify-full&sslrootcert=\(other)", "CERTIFICATE_VERIFY_FAILED"),
            ("localhost", "sslmode=verify-ca&sslrootcert=\(other)", "CERTIFICATE_VERIFY_FAILED"),
            ("localhost", "sslmode=require&sslrootcert=\(other)", "CERTIFICATE_VERIFY_FAILED"),   // require + roots = verify-ca
            ("localhost", "sslmode=verify-full", "CERTIFICATE_VERIFY_FAILED"),   // the system's roots do not hold the test CA
        ]
        for (host, query, says) in fails {
            let failed = try await attempt(host, query)
            #expect(failed?.contains(says) == true, "\(host) \(query): \(failed ?? "connected")")
        }
    }
}
#endif
