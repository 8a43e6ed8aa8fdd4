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
        #expect(throws: RegistryError.self) { try PostgresRegistryStore(url: "postgres://u@h/d?sslmode=verify-full") }
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
}
#endif
