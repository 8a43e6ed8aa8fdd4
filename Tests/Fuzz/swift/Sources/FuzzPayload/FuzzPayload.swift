// FuzzPayload.swift - libFuzzer entry point: a normalized payload decoded
// with ScreenModel(json:), and what decodes resolved under small render
// bounds, written as JSON and as an HTML preview.
//
// What must hold for any input (a failure traps, which libFuzzer reports
// with the input):
// - decoding either succeeds or throws an SDUIError that names the input
//   and the place (a JSON error with its byte offset, a schema error with
//   its JSON path, or a limit);
// - the render tree holds at most RenderLimits.maxNodes nodes plus the one
//   `limit` placeholder; at most one `limit` issue is raised, and when
//   one is, that placeholder is the last node of the tree (the rest of the
//   screen is left out);
// - the tree's JSON, read back with the core's parser, is a tree that
//   writes the very same JSON (a fixed point).  Not the same tree: a whole
//   decimal is written as digits (`.double(3.0)` as `3`, `13E14` as
//   `1300000000000000`) and so reads back as an integer of the same value.
// Time and memory are bounded by libFuzzer's -timeout and -rss_limit_mb
// (run-swift.sh sets them), so an input that makes a render slow or large
// is a finding too.
import Foundation
import Logging
import SDUI
import SDUICore
import SDUIFlow

/// The bounds the harness renders under: small, so inputs reach them.
let limits = RenderLimits(maxNodes: 2_000, maxBytes: 256 << 10)

/// One resolver for every input: no logging (render_error warnings would
/// flood the fuzzer's output), the bounds above.
let resolver: ScreenResolver = {
    var context = RenderContext()
    context.renderLimits = limits
    context.logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
    return ScreenResolver(context)
}()

/// Stops the run with `message`: libFuzzer saves the input as a crash.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FuzzPayload: \(message)\n".utf8))
    abort()
}

/// Checks a decoding error: an SDUIError naming the input and the place.
func check(_ error: any Error) {
    guard let e = error as? SDUIError else { fail("not an SDUIError: \(error)") }
    guard e.input == "fuzz.json" else { fail("the error does not name the input: \(e)") }
    switch e.category {
    case .json: if e.offset == nil { fail("a JSON error without its offset: \(e)") }
    case .schema: if !e.message.hasPrefix("$") { fail("a schema error without its JSON path: \(e)") }
    case .limit: break
    default: fail("unexpected error category: \(e)")
    }
}

/// Checks the bounds and the round trip of a resolved tree.
func check(_ tree: RenderTree) {
    let nodes = tree.root.allNodes
    guard nodes.count - 1 <= limits.maxNodes + 1 else { fail("\(nodes.count - 1) nodes, over the bound") }
    let limitIssues = tree.issues.filter { $0.kind == .limit }
    guard limitIssues.count <= 1 else { fail("\(limitIssues.count) limit issues") }
    if !limitIssues.isEmpty, nodes.last?.reason != "limit" {
        fail("a limit issue, but the tree goes on after its placeholder: \(limitIssues[0])")
    }
    do {
        let json = try tree.jsonData()
        // The core's parser keeps a number's kind as written (JSONDecoder
        // would read `1.5e+17` as an integer); trees nest two JSON levels
        // per node level, past the parser's default bound.
        let value = try JSONValue(json: json, source: "tree.json", maxDepth: 4 * JSONValue.defaultMaxDepth)
        let back = try JSONValueDecoder().decode(RenderTree.self, from: value)
        guard try back.jsonData() == json else { fail("the tree's JSON does not read back to the same JSON") }
    } catch {
        fail("the tree does not round-trip through JSON: \(error)")
    }
    let html = HTMLPreview.render(tree)
    guard html.hasPrefix("<!DOCTYPE html>") else { fail("the preview is not an HTML document") }
}

/// One input: decode it, and check what decoding or rendering it gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let model: ScreenModel
    do {
        model = try ScreenModel(json: data, source: "fuzz.json")
    } catch {
        check(error)
        return 0
    }
    check(resolver.resolve(model))
    return 0
}
