// RegistryErrorTests.swift - how registry errors read, and how store failures become them.
import Foundation
import SDUI
@testable import SDUIRegistryKit
import Testing

@Suite struct RegistryErrorTests {
    @Test func descriptionNamesCodeSubjectAndMessage() {
        #expect(RegistryError(.conflict, "version 1 would change", subject: "promo").description
                == "conflict: promo: version 1 would change")
        #expect(RegistryError(.notFound, "no screen").description == "not-found: no screen")
        #expect(RegistryError(.gate, "over budget").code.rawValue == "gate")
    }

    struct Other: Error {}

    /// Registry and SDUI errors pass through `wrap` as they are; anything
    /// else becomes a `.store` error naming the subject.
    @Test func wrapConvertsOnlyForeignErrors() async throws {
        #expect(try await RegistryError.wrap("db") { 7 } == 7)
        let conflict = RegistryError(.conflict, "x", subject: "a")
        await #expect(throws: conflict) { try await RegistryError.wrap("db") { throw conflict } }
        let sdui = await #expect(throws: SDUIError.self) { try await RegistryError.wrap("db") { throw SDUIError(.json, "bad") } }
        #expect(sdui?.category == .json)
        let store = await #expect(throws: RegistryError.self) { try await RegistryError.wrap("db.sqlite") { throw Other() } }
        #expect(store?.code == .store && store?.subject == "db.sqlite")
        #expect(store?.message.contains("Other") == true)
    }
}
