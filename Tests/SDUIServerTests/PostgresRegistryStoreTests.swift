// PostgresRegistryStoreTests.swift - what is particular to the PostgreSQL store: URLs, schemas, TLS, an unreachable server.
import Foundation
import SDUI
@testable import SDUIServer
import PostgresNIO
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
