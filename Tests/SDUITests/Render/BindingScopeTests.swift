// BindingScopeTests.swift - `{{path}}` lookups: item before host, nested and indexed paths, the path grammar.
import Foundation
@testable import SDUI
import Testing

@Suite struct BindingScopeTests {
    let scope = BindingFixtures.scope

    @Test func itemComesBeforeHost() {
        #expect(scope.lookup("title") == "Hello")
        #expect(scope.lookup("user.name") == "Anna")
        #expect(scope.lookup("locale") == "de-CH")
        #expect(scope.lookup("missing") == nil)
        // An explicit null in the item is found; the host is not consulted.
        #expect(scope.lookup("none") == .null)
    }

    @Test func nestedAndIndexedPaths() {
        #expect(scope.lookup("team.name") == "Stags")
        #expect(scope.lookup("team.players[1].id") == "p9")
        #expect(scope.lookup("team.players[2].id") == nil)
        #expect(scope.lookup("team.players.id") == nil)
        #expect(scope.lookup("list[0]") == "a")
        for bad in ["", ".a", "a.", "a..b", "a[", "a[x]", "a[1", "a b", "[0]", "a[-1]", "a[1234567890]"] {
            #expect(BindingScope.parse(Substring(bad)) == nil, "\(bad) should not parse")
        }
    }

    /// A value built from literals is looked up by path.
    @Test func literalValuesAreLookedUp() {
        let s = BindingScope(host: ["user": ["name": "Anna"]])
        #expect(s.lookup("user.name") == "Anna")
    }
}
