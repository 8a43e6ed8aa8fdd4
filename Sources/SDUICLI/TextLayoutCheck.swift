// TextLayoutCheck.swift - the accessibility lint's layout pass: a screen
// laid out by headless Chromium 320 px wide at text scale 3.1 (the largest
// accessibility size), and the text that no longer fits found.
//
// The tree is resolved at the large scale by the caller and drawn as the
// preview draws it, each node's element carrying its `data-path`.  One
// script, the only one the page's Content-Security-Policy admits, measures
// every element that draws text (Text, Button, Badge, TextField, Toggle,
// Choice, Slider) after layout:
//
//   - clipped: its content is larger than its box (a fixed height, a line
//     clamp, `overflow: hidden`): scrollWidth or scrollHeight beyond
//     clientWidth or clientHeight by more than a pixel;
//   - off the screen: its box reaches past the frame's left or right edge;
//   - overlapping: its box and another text element's intersect by more
//     than 4 px² (neither containing the other), at most the first 300 text
//     elements compared pairwise, so the work is bounded.
//
// Each defect is a `text-clip` finding (WCAG 1.4.4 Resize Text) naming the
// node by its stable id.  The report comes back base64 in `<pre
// id="sdui-layout">` of the DOM Chromium dumps.
#if Server
import Foundation
import SDUI
import SDUICore

package struct TextLayoutCheck: Sendable {
    /// The screen width the layout pass uses.
    package static let width = 320
    /// The text scale it resolves screens at (the accessibility mode's).
    package static let textScale = 3.1
    /// Most text elements compared pairwise for overlap.
    package static let maxOverlapElements = 300

    let browser: HeadlessBrowser

    /// A check with Chromium from `PATH`.
    ///
    /// - Throws: `SDUIError` `.notFound` when no browser is installed.
    package init() throws {
        do { browser = try HeadlessBrowser() } catch let e as HeadlessBrowser.Failure {
            throw SDUIError(.notFound, e.message + " (or lint without --layout)", input: "--layout")
        }
    }

    /// The `text-clip` findings of `tree` (resolved at ``textScale`` unless
    /// `condition` says how it was made: `in the pseudo-locale en-XA`).
    package func findings(in tree: RenderTree, condition: String? = nil) async throws -> [AccessibilityFinding] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-layout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("screen.html")
        try Data(HTMLPreview.layoutProbe(tree, width: Self.width, script: Self.script).utf8).write(to: file)
        let dom: String
        do {
            dom = try await browser.dumpDOM(of: file, width: Self.width, height: 2_000)
        } catch let e as HeadlessBrowser.Failure {
            throw SDUIError(.io, e.message, input: tree.renderedScreen)
        }
        guard let start = dom.range(of: "<pre id=\"sdui-layout\">"),
              let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex),
              let data = Data(base64Encoded: String(dom[start.upperBound..<end.lowerBound])),
              let report = try? JSONValue(json: data, source: "layout report") else {
            throw SDUIError(.io, "the layout pass wrote no report", input: tree.renderedScreen)
        }
        let ids = Dictionary(RenderNodeID.all(in: tree).map { ($0.path.map(String.init).joined(separator: "."), $0) },
                             uniquingKeysWith: { first, _ in first })
        var out: [AccessibilityFinding] = []
        for item in report["defects"]?.arrayValue ?? [] {
            guard let path = item["path"]?.stringValue, let what = item["what"]?.stringValue else { continue }
            let node = ids[path]
            let detail: String
            switch what {
            case "clipped":
                detail = "its text does not fit its box (content \(Self.size(item["content"])) in \(Self.size(item["box"])) px)"
            case "offscreen":
                detail = "it reaches past the screen's edge"
            default:
                let other = item["other"]?.stringValue.flatMap { ids[$0]?.id } ?? "another text"
                detail = "it overlaps \(other)"
            }
            out.append(AccessibilityFinding(
                rule: "text-clip", severity: .error, screen: tree.renderedScreen, node: node?.id ?? path,
                token: node?.node.token,
                message: "\(condition ?? "at text scale \(JSONValue.text(Self.textScale))") on a \(Self.width) px screen \(detail)",
                wcag: "1.4.4"))
        }
        return out
    }

    /// `W×H` of a `[w, h]` pair.
    static func size(_ v: JSONValue?) -> String {
        let n = (v?.arrayValue ?? []).compactMap(\.doubleValue).map { JSONValue.text($0.rounded()) }
        return n.count == 2 ? "\(n[0])×\(n[1])" : "?"
    }

    /// The measuring script (the file's essay); fixed text, so the page's
    /// policy admits it by hash.
    static let script = """
        window.addEventListener('load', function () {
          var kinds = {Text: 1, Button: 1, Badge: 1, TextField: 1, Toggle: 1, Choice: 1, Slider: 1};
          var frame = document.querySelector('.sdui-frame').getBoundingClientRect();
          var els = Array.prototype.filter.call(document.querySelectorAll('[data-path]'), function (el) {
            return kinds[el.getAttribute('data-primitive')] && el.getAttribute('data-kind') === 'primitive';
          });
          var defects = [];
          els.forEach(function (el) {
            var path = el.getAttribute('data-path'), r = el.getBoundingClientRect();
            if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) {
              defects.push({path: path, what: 'clipped', content: [el.scrollWidth, el.scrollHeight],
                            box: [el.clientWidth, el.clientHeight]});
            } else if (r.width > 0 && (r.left < frame.left - 1 || r.right > frame.right + 1)) {
              defects.push({path: path, what: 'offscreen'});
            }
          });
          var some = els.slice(0, \(maxOverlapElements));
          var boxes = some.map(function (el) { return el.getBoundingClientRect(); });
          for (var i = 0; i < some.length; i++) {
            for (var j = i + 1; j < some.length; j++) {
              if (some[i].contains(some[j]) || some[j].contains(some[i])) continue;
              var a = boxes[i], b = boxes[j];
              var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
              var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
              if (w > 0 && h > 0 && w * h > 4) {
                defects.push({path: some[j].getAttribute('data-path'), what: 'overlap',
                              other: some[i].getAttribute('data-path')});
              }
            }
          }
          var bytes = new TextEncoder().encode(JSON.stringify({defects: defects})), bin = '';
          for (var k = 0; k < bytes.length; k++) bin += String.fromCharCode(bytes[k]);
          var pre = document.createElement('pre');
          pre.id = 'sdui-layout';
          pre.textContent = btoa(bin);
          document.body.appendChild(pre);
        });
        """
}
#endif
