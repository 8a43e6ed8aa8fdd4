// DecoderPropertyTests.swift - property tests of the flow and normalized-
// payload decoders: thousands of mutated documents (members removed,
// values of every other type put in, ids repeated, text cut short) never
// crash either decoder, and each refusal is a JSON error with its place or
// a schema error naming a JSON path.  What decodes also validates and
// renders without a crash.
import Foundation
import SDUI
import SDUICore
import SDUIFlow
import SDUITestSupport
import Testing

@Suite struct DecoderPropertyTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples")

    /// A value of a random kind.
    static func randomValue(_ r: inout SeededGenerator) -> JSONValue {
        switch Int.random(in: 0..<8, using: &r) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &r))
        case 2: return .int(Int64.random(in: -5...5, using: &r))
        case 3: return .double(Double.random(in: -1...1, using: &r))
        case 4: return .string(["", "a", "screen_goal", "c1", "b1", "answers.goal ==", "row", "column"].randomElement(using: &r)!)
        case 5: return .array([])
        case 6: return .object([:])
        default: return .array([.object(["id": "c1", "order": 1])])
        }
    }

    /// `v` with one random change somewhere inside it.
    static func mutate(_ v: JSONValue, _ r: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        let here = depth > 6 || Int.random(in: 0..<4, using: &r) == 0
        switch v {
        case .object(var o) where !o.isEmpty:
            let key = o.keys.sorted().randomElement(using: &r)!
            if here {
                if Bool.random(using: &r) { o[key] = nil } else { o[key] = randomValue(&r) }
            } else {
                o[key] = mutate(o[key]!, &r, depth: depth + 1)
            }
            return .object(o)
        case .array(var a) where !a.isEmpty:
            let i = Int.random(in: 0..<a.count, using: &r)
            if here {
                switch Int.random(in: 0..<3, using: &r) {
                case 0: a.remove(at: i)
                case 1: a.append(a[i])                    // a repeated id
                default: a[i] = randomValue(&r)
                }
            } else {
                a[i] = mutate(a[i], &r, depth: depth + 1)
            }
            return .array(a)
        default:
            return randomValue(&r)
        }
    }

    /// Checks that `error` is a refusal with a place.
    static func expectPlaced(_ error: any Error, _ what: String) {
        guard let e = error as? SDUIError else { Issue.record("\(what): not an SDUIError: \(error)"); return }
        switch e.category {
        case .json: #expect(e.offset != nil, "\(what): \(e)")
        case .schema: #expect(e.message.hasPrefix("$"), "\(what): no JSON path: \(e)")
        default: Issue.record("\(what): unexpected category: \(e)")
        }
    }

    @Test func mutatedFlowsNeverCrashAndRefusalsNameAPath() throws {
        let base = try JSONValue(json: Data(contentsOf: Self.examples.appendingPathComponent("flows/onboarding.json")))
        var r = SeededGenerator(state: 0x5D01)
        var decoded = 0
        for i in 0..<3000 {
            var v = base
            for _ in 0..<Int.random(in: 1...3, using: &r) { v = Self.mutate(v, &r) }
            do {
                let flow = try FlowDefinition(value: v, source: "mutant \(i)")
                decoded += 1
                let issues = FlowValidator().validate(flow)
                for issue in issues { #expect(issue.path.hasPrefix("$"), "mutant \(i): \(issue)") }
                _ = ScreenResolver().resolve(flow.screens[0].blockScreen)
            } catch {
                Self.expectPlaced(error, "mutant \(i)")
            }
        }
        #expect(decoded > 100)       // the mutations also reach the validator
    }

    @Test func mutatedNormalizedPayloadsNeverCrashAndRefusalsNameAPath() throws {
        let base = try JSONValue(json: Data(contentsOf: Self.examples.appendingPathComponent("payloads/home_normalized.json")))
        var r = SeededGenerator(state: 0x5D02)
        var decoded = 0
        for i in 0..<3000 {
            var v = base
            for _ in 0..<Int.random(in: 1...3, using: &r) { v = Self.mutate(v, &r) }
            do {
                let model = try ScreenModel(value: v, source: "mutant \(i)")
                decoded += 1
                let tree = ScreenResolver().resolve(model)
                #expect(tree.root.children.count == model.templates.count)
            } catch {
                Self.expectPlaced(error, "mutant \(i)")
            }
        }
        #expect(decoded > 100)
    }

    /// Text cut at every byte is refused as JSON with a place (or decodes,
    /// when the cut leaves a whole document).
    @Test func truncatedTextIsAJSONErrorWithItsPlace() throws {
        for file in ["flows/onboarding.json", "payloads/home_normalized.json"] {
            let data = try Data(contentsOf: Self.examples.appendingPathComponent(file))
            for cut in stride(from: 0, to: data.count - 1, by: 7) {
                let part = data.prefix(cut)
                do {
                    if file.hasPrefix("flows") { _ = try FlowDefinition(json: part) } else { _ = try ScreenModel(json: part) }
                    Issue.record("\(file) cut at \(cut) decoded")
                } catch {
                    Self.expectPlaced(error, "\(file) cut at \(cut)")
                }
            }
        }
    }
}
