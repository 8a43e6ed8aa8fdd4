// CompiledExpressionTests.swift - the expression language through Swift: the whole
// published vector suite, errors, paths and concurrent evaluation.
import Foundation
import SDUICore
import SDUITestSupport
import Testing

/// One case of Tests/ExprVectors: an expression and its value or error kind.
private struct VectorCase: Sendable, CustomStringConvertible {
    var file: String
    var expr: String
    var value: JSONValue?
    var error: String?
    /// The case's own data, replacing the file's (docs/expressions.md).
    var data: JSONValue?
    var description: String { "\(file): \(expr)" }
}

/// Every vector file: its data and its cases.
private func vectorFiles() throws -> [(name: String, data: JSONValue, cases: [VectorCase])] {
    let dir = Fixtures.repositoryRoot.appendingPathComponent("Tests/ExprVectors")
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        .filter { $0.hasSuffix(".json") }.sorted()
    return try names.map { name in
        let file = try JSONValue(json: Data(contentsOf: dir.appendingPathComponent(name)), source: name)
        let cases = (file["cases"]?.arrayValue ?? []).map { c in
            VectorCase(file: name, expr: c["expr"]?.stringValue ?? "",
                       value: c.objectValue?["value"], error: c["error"]?.stringValue,
                       data: c.objectValue?["data"])
        }
        return (name, file["data"] ?? .object([:]), cases)
    }
}

/// The category a vector's error kind names.
private func category(forKind kind: String) -> SDUIError.Category? {
    kind == "limit" ? .limit : SDUIError.Category(rawValue: "expr-" + kind)
}

@Suite struct CompiledExpressionTests {
    @Test func theVectorSuitePasses() throws {
        let files = try vectorFiles()
        var checked = 0
        for file in files {
            // The data goes to the core through the builder, not as text.
            let fileData = try JSONDocument(file.data)
            for c in file.cases {
                do {
                    let data = try c.data.map { try JSONDocument($0) } ?? fileData
                    let expr = try CompiledExpression(c.expr)
                    let got = try expr.evaluate(data)
                    #expect(c.error == nil, "\(c): expected a \(c.error ?? "") error, got \(got)")
                    #expect(got == c.value, "\(c): got \(got), expected \(String(describing: c.value))")
                    // The text form reads back to the same value (integers stay integers).
                    let text = try expr.evaluateJSON(data)
                    #expect(try JSONValue(json: Data(text.utf8)) == got, "\(c): text \(text)")
                } catch let e as SDUIError {
                    guard let kind = c.error else {
                        Issue.record("\(c): unexpected error \(e)")
                        continue
                    }
                    #expect(e.category == category(forKind: kind), "\(c): \(e)")
                    #expect(e.input?.hasPrefix("expression '") == true, "\(c): \(e)")
                    #expect(!e.message.isEmpty)
                }
                checked += 1
            }
        }
        #expect(files.count >= 10)
        #expect(checked >= 400, "only \(checked) vectors")
    }

    @Test func parseErrorsGiveTheOffset() throws {
        let e = try #require(throws: SDUIError.self) { try CompiledExpression("cart.total + * 2") }
        #expect(e.category == .exprParse)
        #expect(e.offset == 13)
        #expect(e.description.contains("expression 'cart.total + * 2'"), "\(e)")
    }

    @Test func evaluationErrorsNameTheSubExpressionAndItsOffset() throws {
        let data = try JSONDocument(["n": 1, "s": "x"])
        let e = try #require(throws: SDUIError.self) { try CompiledExpression("n + s > 0").evaluate(data) }
        #expect(e.category == .exprType)
        #expect(e.offset == 0, "\(e)")
        let d = try #require(throws: SDUIError.self) { try CompiledExpression("1 + n / 0").evaluate(data) }
        #expect(d.category == .exprDivision)
        #expect(d.offset == 4, "\(d)")
    }

    @Test func pathsAreTheDependencies() throws {
        let e = try CompiledExpression("sum(items[*].price) + cart.fee ?? answers['first name'] == x[i]")
        #expect(e.paths == ["items[*].price", "cart.fee", "answers['first name']", "x", "i"])
        #expect(try CompiledExpression("1 + 2").paths.isEmpty)
    }

    @Test func rootsCanComeFromSeparateDocuments() throws {
        let cart = try JSONDocument(["total": 40, "items": [["price": 1.5], ["price": 2]]])
        let user = try JSONDocument(["name": "Ada"])
        let e = try CompiledExpression("cart.total + sum(cart.items[*].price) > 43 && user.name == 'Ada' && missing == null")
        #expect(try e.evaluate(roots: ["cart": cart, "user": user]) == .bool(true))
        #expect(try CompiledExpression("cart.total").evaluate(roots: [:]) == .null)
        // A top level that is not an object has no roots.
        #expect(try CompiledExpression("a ?? 7").evaluate(JSONDocument([1, 2])) == .int(7))
    }

    /// The slot entry points: the core numbers the root names as they first
    /// appear; `evaluate(slots:)` and `isTrue(slots:)` take the documents in
    /// that order and answer as the by-name calls do, on every vector.
    @Test func slotsAreTheRootNamesInOrderAndAnswerAsByName() throws {
        let e = try CompiledExpression("user.age >= 18 && 'beta' in user.flags && cart.total > 0 && cart.n != x")
        #expect(e.rootNames == ["user", "cart", "x"])
        #expect(try CompiledExpression("a + a.b + a['c'] + b[a]").rootNames == ["a", "b"])
        let user = try JSONDocument(["age": 30, "flags": ["alpha", "beta"]])
        let cart = try JSONDocument(["total": 12.5, "n": 1])
        #expect(try e.isTrue(slots: [user, cart, nil]))
        #expect(try e.isTrue(slots: [user, cart]))             // x past the end: null
        #expect(try !e.isTrue(slots: [user, try JSONDocument(["total": 0])]))
        #expect(try e.isTrue(roots: ["user": user, "cart": cart]))
        #expect(try e.evaluate(slots: [user, cart]) == .bool(true))
        // Not a boolean: a type error naming the expression.
        let v = try #require(throws: SDUIError.self) { try CompiledExpression("cart.total").isTrue(slots: [cart]) }
        #expect(v.category == .exprType)
        #expect(v.message.contains("a condition gave a decimal, not a boolean"), "\(v)")
        #expect(v.input == "expression 'cart.total'")
        // An evaluation error is the same error either way.
        let bad = try CompiledExpression("cart.total > 'x'")
        let byName = try #require(throws: SDUIError.self) { try bad.evaluate(roots: ["cart": cart]) }
        let bySlot = try #require(throws: SDUIError.self) { try bad.isTrue(slots: [cart]) }
        #expect(byName.message == bySlot.message && byName.offset == bySlot.offset)

        // Every vector: by slot as by document, and the boolean ones as conditions.
        var conditions = 0
        for file in try vectorFiles() {
            let fileData = try JSONDocument(file.data)
            for c in file.cases where c.error == nil {
                let data = try c.data.map { try JSONDocument($0) } ?? fileData
                guard let expr = try? CompiledExpression(c.expr) else { continue }
                // A document per root, holding that root's value.
                let docs = try expr.rootNames.map { name in
                    try data.value.objectValue?[name].map { try JSONDocument($0) }
                }
                let want = try expr.evaluate(data)
                #expect(try expr.evaluate(slots: docs) == want, "\(c)")
                if case .bool(let b) = want {
                    #expect(try expr.isTrue(slots: docs) == b, "\(c)")
                    conditions += 1
                }
            }
        }
        #expect(conditions >= 100, "only \(conditions) boolean vectors")
    }

    @Test func aDocumentHoldsTheValueItWasBuiltFrom() throws {
        let v: JSONValue = ["a": [1, 2.5, "x", .null, true, ["b": [:]]], "é": "\u{0}z", "": []]
        #expect(try JSONDocument(v).value == v)
        #expect(try JSONDocument(json: Data(#"{"a":[1,2.5]}"#.utf8)).value == ["a": [1, 2.5]])
    }

    @Test func aDocumentRefusesWhatTheTreeCannotHold() throws {
        var deep: JSONValue = 1
        for _ in 0..<200 { deep = [deep] }
        let e = try #require(throws: SDUIError.self) { try JSONDocument(deep) }
        #expect(e.category == .limit, "\(e)")
        let nan = try #require(throws: SDUIError.self) { try JSONDocument(["x": .double(.nan)]) }
        #expect(nan.category == .argument, "\(nan)")
        let bad = try #require(throws: SDUIError.self) { try JSONDocument(json: Data("[1,".utf8), source: "d.json") }
        #expect(bad.category == .json && bad.input == "d.json")
    }

    @Test func oneProgramEvaluatesFromManyThreadsAtOnce() async throws {
        let e = try CompiledExpression("sum(items[*].price) * k")
        let docs = try (0..<8).map { k in try JSONDocument(["items": [["price": 1], ["price": 2]], "k": .int(Int64(k))]) }
        let results = try await withThrowingTaskGroup(of: [JSONValue].self) { group in
            for doc in docs {
                group.addTask { try (0..<2000).map { _ in try e.evaluate(doc) } }
            }
            var all: [[JSONValue]] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(Set(results.map { Set($0).count }) == [1])
        #expect(Set(results.compactMap { $0.first }) == Set((0..<8).map { JSONValue.int(3 * Int64($0)) }))
    }
}
