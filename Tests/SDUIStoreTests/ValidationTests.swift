// ValidationTests.swift - strict and lenient rules on writes.
import Foundation
import SDUICore
@testable import SDUIStore
import Testing

@Suite struct ValidationTests {
    @Test func strictRefusesAndSaysWhy() {
        let s = memoryStore()
        s.configureValidation(.init(mode: .strict, schema: [
            "age": Rule(kind: .integer, min: 0, max: 150),
            "name": Rule(kind: .string, min: 1, pattern: "^[A-Z][a-z]+$"),
            "items[*].price": Rule(kind: .number, required: true),
            "brand": Rule(kind: .color),
            "home": Rule(kind: .url),
            "flags": Rule(kind: .array, max: 2),
        ]))
        #expect(s.set("age", 36) == .ok)
        #expect(s.set("age", "36") == .failed(reason: "age: a string is not an integer"))
        #expect(s.set("age", 200) == .failed(reason: "age: 200 is more than the maximum 150"))
        #expect(s.set("age", 1.5) == .failed(reason: "age: a number is not an integer"))
        #expect(s.set("name", "Ada") == .ok)
        #expect(s.set("name", "ada") == .failed(reason: #"name: "ada" does not match the pattern "^[A-Z][a-z]+$""#))
        #expect(s.set("items", [["price": 1], ["price": 2.5]]) == .ok)
        #expect(s.set("items[1]", ["title": "x"]) == .failed(reason: "items[1].price is required"))
        #expect(s.set("items[0].price", "1") == .failed(reason: "items[0].price: a string is not a number"))
        #expect(s.remove("items[0].price") == .failed(reason: "items[0].price is required"))
        // JSON has no colour type: a colour string is accepted as a colour.
        #expect(s.set("brand", "#FF8800") == .ok)
        #expect(s.get("brand") == .color("#FF8800"))
        #expect(s.set("brand", "orange-ish") == .failed(reason: "brand: a string is not a colour"))
        #expect(s.set("home", .url("https://example.com/a")) == .ok)
        #expect(s.set("home", "not a url") == .failed(reason: "home: a string is not a URL"))
        #expect(s.set("flags", [true, false, true]) == .failed(reason: "flags: an array of 3 items is more than the maximum 2"))
        #expect(s.get("age") == 36 && s.get("name") == "Ada" && s.get("flags") == nil)
        #expect(s.validateWrite("age", 20) == .ok)
        #expect(s.validateWrite("age", -1) == .failed(reason: "age: -1 is less than the minimum 0"))
        #expect(s.get("age") == 36)
    }

    @Test func aParentWriteIsCheckedAgainstTheRulesBelowIt() {
        let s = memoryStore()
        s.configureValidation(.init(mode: .strict, schema: ["cart.total": Rule(kind: .number, required: true, defaultValue: 0)]))
        #expect(s.get("cart.total") == 0, "a required key with a default is filled when configured")
        #expect(s.set("cart", ["total": "x"]) == .failed(reason: "cart.total: a string is not a number"))
        #expect(s.set("cart", ["fee": 1]) == .failed(reason: "cart.total is required"))
        #expect(s.remove("cart") == .failed(reason: "cart.total is required"))
        #expect(s.set("cart", ["total": 3, "fee": 1]) == .ok)
    }

    @Test func lenientCoercesOrFallsBackToTheDefault() {
        let s = memoryStore()
        s.configureValidation(.init(mode: .lenient, schema: [
            "count": Rule(kind: .integer, defaultValue: 0),
            "price": Rule(kind: .number),
            "on": Rule(kind: .bool, defaultValue: false),
            "label": Rule(kind: .string),
            "brand": Rule(kind: .color, defaultValue: .color("#000000")),
            "limit": Rule(kind: .integer, max: 10),
            "total": Rule(kind: .number, required: true, defaultValue: 0),
        ]))
        #expect(s.set("count", "1") == .ok)
        #expect(s.get("count") == .integer(1))
        #expect(s.set("count", 2.0) == .ok)
        #expect(s.get("count") == .integer(2))
        #expect(s.set("count", "many") == .ok)
        #expect(s.get("count") == .integer(0), "no coercion: the default")
        #expect(s.set("price", "2.5") == .ok)
        #expect(s.get("price") == .number(2.5))
        #expect(s.set("on", "true") == .ok)
        #expect(s.get("on") == .bool(true))
        #expect(s.set("label", 12) == .ok)
        #expect(s.get("label") == "12")
        #expect(s.set("brand", "#12345") == .ok)
        #expect(s.get("brand") == .color("#000000"))
        #expect(s.set("limit", 11) == .failed(reason: "limit: 11 is more than the maximum 10"), "no default: refused")
        #expect(s.remove("total") == .ok)
        #expect(s.get("total") == 0, "a removed required key falls back to its default")
    }

    @Test func aBadRuleIsRefusedWhole() {
        let s = memoryStore()
        #expect(throws: SDUIError.self) { try s.setValidation(.init(mode: .strict, schema: ["a..b": Rule(kind: .string)])) }
        let e = try? #require(throws: SDUIError.self) {
            try s.setValidation(.init(mode: .strict, schema: ["a": Rule(kind: .string, pattern: "(")]))
        }
        #expect(e?.message.contains("the pattern of a is not valid") == true, "\(String(describing: e))")
        #expect(s.set("a", 1) == .ok, "no rules were applied")
    }
}
