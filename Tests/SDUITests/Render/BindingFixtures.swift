// BindingFixtures.swift - the binding scope the BindingScope and BindingTemplate suites share.
@testable import SDUI

enum BindingFixtures {
    /// Item values of every kind, and host values, one of them (`title`) shadowed by the item.
    static let scope = BindingScope(
        item: ["title": "Hello", "count": 3, "price": .double(19.5), "flag": true, "none": .null,
               "team": .object(["name": "Stags", "players": .array([.object(["id": "p7"]), .object(["id": "p9"])])]),
               "list": .array(["a", "b"])],
        host: ["title": "from host", "user": .object(["name": "Anna"]), "locale": "de-CH"])
}
