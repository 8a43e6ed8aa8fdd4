// HTMLPreviewTests.swift - the HTML preview of a render tree, checked as
// headless Chromium lays it out.
import Foundation
@testable import SDUI
import SDUITestSupport
import SDUICLI
import Testing

/// Each page is loaded once (one Chromium run) and shared by the tests that
/// look at it: a script appended here, not by the preview, measures every
/// `[data-kind]` element and leaves the result in `<pre id="layout">`.
@Suite("HTMLPreview")
struct HTMLPreviewTests {
    // MARK: Pure checks (no browser)

    @Test("only valid hex colours, finite lengths and https URLs reach CSS")
    func propValidation() {
        #expect(HTMLPreview.color(.string("#abc")) == "#abc")
        #expect(HTMLPreview.color(.string("#112233")) == "#112233")
        #expect(HTMLPreview.color(.string("#FF000080")) == "rgba(255,0,0,0.502)")
        for bad in ["red", "#12345", "#GGGGGG", "#１２３", "red;}body{display:none", "#112233;x", ""] {
            #expect(HTMLPreview.color(.string(bad)) == nil, "\(bad)")
        }
        #expect(HTMLPreview.color(.int(0x112233)) == nil)
        #expect(HTMLPreview.length(.double(.nan)) == nil)
        #expect(HTMLPreview.length(.double(.infinity)) == nil)
        #expect(HTMLPreview.length(.int(-4)) == nil)
        #expect(HTMLPreview.length(.string("12px;color:red")) == nil)
        #expect(HTMLPreview.length(.double(12.5)) == "12.5px")
        #expect(HTMLPreview.edges(.object(["horizontal": .int(16), "top": .int(4)])) == "4px 16px 0 16px")
        #expect(HTMLPreview.edges(.object(["leading": .int(3), "end": .int(5)])) == "0 5px 0 3px")
        #expect(HTMLPreview.imageURL(.string("http://cdn.example.test/a.png")) == nil)
        #expect(HTMLPreview.imageURL(.string("javascript:alert(1)")) == nil)
        #expect(HTMLPreview.imageURL(.string(#"HTTPS://x.test/a b"()'\é"#)) == "HTTPS://x.test/a%20b%22%28%29%27%5C%C3%A9")
        #expect(HTMLPreview.escape(#"<a href="x">'&"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;")
    }

    @Test("the document is self-contained: no scripts, no links, a CSP, escaped title")
    func selfContained() {
        let html = HTMLPreview.render(PreviewPages.hostileTree, title: PreviewPages.hostileTitle)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains(HTMLPreview.contentSecurityPolicy))
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("<b id") && !html.contains("<i id") && !html.contains("<img"))
        #expect(!html.contains("red;}") && !html.contains("display:none") && !html.contains("javascript:"))
        #expect(!html.contains("#12345"))
        #expect(html.contains("<title>&lt;/title&gt;&lt;script&gt;"))
        #expect(html.contains("<h2>Issues (1)</h2>") && html.contains("&lt;b&gt;resolver note&lt;/b&gt;"))
        #expect(!HTMLPreview.render(PreviewPages.layoutTree).contains("http://"))
    }

    @Test("a missing browser names the setup script")
    func missingBrowser() {
        do {
            _ = try HeadlessBrowser(searchPath: "/nonexistent-sdui-dir")
            Issue.record("found a browser on an empty PATH")
        } catch {
            #expect("\(error)".contains("bash scripts/setup.sh"))
        }
    }

    // MARK: Layout page

    @Test("the frame is 390 px wide, centred, with the root's background")
    func frame() async throws {
        let page = try await PreviewPages.layout.value
        #expect(page.viewportWidth == 600)
        #expect(near(page.frame.width, 390))
        #expect(near(page.frame.x, (600 - 390) / 2))
        #expect(page.frame.backgroundColor == "rgb(245, 245, 247)")
        #expect(page.body.backgroundColor != page.frame.backgroundColor)
        let root = try page.node("root")
        #expect(near(root.x, page.frame.x) && near(root.width, 390))
        #expect(page.nodes.allSatisfy { $0.className.split(separator: " ").contains(Substring(PreviewPages.expectedClass($0))) })
        #expect(page.nodes.count == PreviewPages.layoutTree.root.allNodes.count)
    }

    @Test("a Column stacks its children with its spacing, padding and border")
    func column() async throws {
        let page = try await PreviewPages.layout.value
        let stack = try page.node("stack")
        let (a, b, c) = (try page.node("s1"), try page.node("s2"), try page.node("s3"))
        #expect(stack.display == "flex" && stack.flexDirection == "column")
        #expect(near(a.y - stack.y, 2 + 12), "border 2 + padding top 12")
        #expect(near(a.x - stack.x, 2 + 20), "border 2 + padding start 20")
        #expect(near(b.y - a.bottom, 16) && near(c.y - b.bottom, 16), "gap = spacing")
        #expect(near(a.height, 24) && near(b.height, 20), "one line at the line height")
        #expect(near(c.width, stack.width - 2 * 2 - 20 - 8), "an image without width fills the column")
        #expect(near(c.height, 30))
        #expect(stack.backgroundColor == "rgb(255, 238, 221)")
        #expect(stack.borderTopStyle == "solid" && stack.borderTopWidth == "2px")
        #expect(stack.borderTopColor == "rgb(17, 34, 51)" && stack.borderRadius == "8px")
        let spacer = try page.node("gap"), title = try page.node("title"), next = try page.node("translucent")
        #expect(near(spacer.height, 24) && near(spacer.y, title.bottom) && near(next.y, spacer.bottom))
    }

    @Test("a Row lays its children out left to right on one line")
    func row() async throws {
        let page = try await PreviewPages.layout.value
        let row = try page.node("row")
        let items = try ["r1", "r2", "r3", "r4"].map { try page.node($0) }
        #expect(row.flexDirection == "row")
        #expect(near(items[0].x, row.x))
        for (left, right) in zip(items, items.dropFirst()) {
            #expect(near(right.x - left.right, 10), "gap = spacing between \(left.token ?? "") and \(right.token ?? "")")
        }
        #expect(items[2].width > 0, "the flexible spacer takes the free space")
        #expect(near(items[3].right, row.right), "so the button ends at the row's end")
        for item in items where item.height > 0 {
            #expect(near(item.y + item.height / 2, row.y + row.height / 2), "CENTER aligns \(item.token ?? "")")
        }
        let image = items[0]
        #expect(near(image.width, 40) && near(image.height, 40) && image.borderRadius == "20px")
        #expect(image.role == "img" && image.ariaLabel == "Avatar")
        #expect(image.backgroundColor == "rgb(232, 234, 246)")
        #expect(image.backgroundImage == #"url("https://cdn.example.test/avatar.png")"#)
    }

    @Test("Text takes its colour, typography, alignment and line clamp")
    func text() async throws {
        let page = try await PreviewPages.layout.value
        let title = try page.node("title")
        #expect(title.tag == "p" && title.text == "Welcome back")
        #expect(title.color == "rgb(51, 102, 153)")
        #expect(title.fontSize == "20px" && title.lineHeight == "28px" && title.fontWeight == "700")
        #expect(title.textAlign == "center")
        #expect(try page.node("translucent").color == "rgba(255, 0, 0, 0.5)")
        let clamped = try page.node("clamped")
        #expect(near(clamped.height, 40), "maxLines 2 at line height 20")
        #expect(clamped.scrollHeight > 40, "the text is longer than two lines")
    }

    @Test("placeholders and skeletons are visible boxes with their label")
    func placeholderAndSkeleton() async throws {
        let page = try await PreviewPages.layout.value
        let missing = try page.node("missing")
        #expect(missing.kind == "placeholder" && missing.primitive == "Foo")
        #expect(missing.text == "Unsupported: Foo@2 (unknown_primitive)")
        #expect(missing.height >= 48 && missing.width > 300 && missing.visibility == "visible")
        #expect(missing.borderTopStyle == "dashed")
        let loading = try page.node("loading")
        #expect(loading.kind == "skeleton" && loading.text == "Loading loading")
        #expect(near(loading.height, 120) && loading.width > 300)
        #expect(loading.backgroundImage.contains("linear-gradient") && loading.animationName == "sdui-shimmer")
        #expect(loading.borderRadius != "0px")
    }

    @Test("Button, TextField, Slider, Choice and Toggle are real form elements")
    func formElements() async throws {
        let page = try await PreviewPages.layout.value
        let form = try page.node("form"), pay = try page.node("pay")
        #expect(pay.tag == "button" && pay.text == "Pay 12.50")
        #expect(pay.backgroundColor == "rgb(21, 101, 192)" && pay.color == "rgb(255, 255, 255)")
        #expect(near(pay.height, 48) && pay.borderRadius == "12px")
        #expect(near(pay.x - form.x, 16) && near(pay.width, form.width - 32), "fullWidth inside padding 16")
        #expect(try page.node("email").inputs == [.init(type: "text", value: "a@b.test", checked: false, name: "email")])
        #expect(try page.node("password").inputs.map(\.type) == ["password"])
        let age = try page.node("age")
        #expect(age.inputs.map(\.type) == ["range"] && age.inputs.first?.value == "30")
        #expect(age.text.contains("How old are you?") && age.text.contains("30 years"))
        let goal = try page.node("goal")
        #expect(goal.tag == "fieldset" && goal.inputs.map(\.type) == ["radio", "radio", "radio"])
        #expect(goal.inputs.filter(\.checked).map(\.value) == ["b"])
        #expect(Set(goal.inputs.map(\.name)).count == 1)
        let areas = try page.node("areas")
        #expect(areas.inputs.map(\.type) == ["checkbox", "checkbox", "checkbox"])
        #expect(areas.inputs.filter(\.checked).map(\.value) == ["x", "z"])
        #expect(Set(areas.inputs.map(\.name)) != Set(goal.inputs.map(\.name)))
        let remember = try page.node("remember")
        #expect(remember.inputs.map(\.type) == ["checkbox"] && remember.inputs.first?.checked == true)
        #expect(remember.text == "Keep me signed in")
    }

    @Test("an unknown primitive is a plain column of its children")
    func unknownPrimitive() async throws {
        let page = try await PreviewPages.layout.value
        let carousel = try page.node("carousel")
        #expect(carousel.className.contains("sdui-carousel"))
        #expect(carousel.display == "flex" && carousel.flexDirection == "column")
        let (first, second) = (try page.node("k1"), try page.node("k2"))
        #expect(near(second.y, first.bottom) && near(first.x, second.x))
    }

    @Test("a Badge is a small pill that hugs its text")
    func badge() async throws {
        let page = try await PreviewPages.layout.value
        let row = try page.node("badges"), count = try page.node("count")
        #expect(count.tag == "span" && count.text == "12")
        #expect(count.backgroundColor == "rgb(220, 38, 38)" && count.color == "rgb(255, 255, 255)")
        #expect(count.fontSize == "12px" && count.fontWeight == "600" && count.borderRadius == "999px")
        #expect(near(count.height, 20), "line height 16 + padding 2 + 2")
        #expect(count.width > 16 && count.width < 40, "as wide as two digits and its padding")
        #expect(near(count.y + count.height / 2, row.y + row.height / 2), "centred in the row")
        #expect(near(count.x - (try page.node("inbox")).right, 8), "after the title, spacing apart")
        let new = try page.node("new"), root = try page.node("root")
        #expect(new.backgroundColor == "rgb(229, 231, 235)" && new.color == "rgb(17, 24, 39)", "default colours")
        #expect(near(new.x, root.x) && new.width < 60, "at the start of the column, as wide as its text")
    }

    // MARK: Hostile page

    @Test("hostile values are rendered as text, never as markup or CSS")
    func hostileValues() async throws {
        let page = try await PreviewPages.hostile.value
        #expect(page.scripts == 1, "only the measuring script")
        #expect(page.injected == 0, "no element from a value")
        #expect(page.title == PreviewPages.hostileTitle)
        #expect(try page.node("evil-text").text == PreviewPages.hostileText)
        #expect(page.nodes.contains { $0.token == PreviewPages.hostileToken })
        #expect(try page.node("evil-field").inputs.first?.value == PreviewPages.hostileValue)
        let button = try page.node("evil-button")
        #expect(button.text == PreviewPages.hostileLabel)
        #expect(button.backgroundColor == "rgb(17, 24, 39)", "#12345 is ignored: the default fill")
        #expect(try page.node("evil-placeholder").text.contains(PreviewPages.hostilePrimitive))
        #expect(try page.node("evil-choice").text.contains("<u id=\"pwned5\">"))
        let image = try page.node("evil-url")
        #expect(image.backgroundColor == "rgb(0, 255, 0)")
        #expect(image.backgroundImage.hasPrefix(#"url("https://cdn.example.test/a.png%22%29;"#))
        #expect(image.backgroundImage.components(separatedBy: "url(").count == 2, "one url() only")
        #expect(try page.node("js-url").backgroundImage == "none")
    }

    @Test("a non-hex colour such as `red;}body{display:none` never reaches CSS")
    func invalidColours() async throws {
        let page = try await PreviewPages.hostile.value
        #expect(page.body.display == "block" && page.frame.display == "flex")
        #expect(page.frame.backgroundColor == "rgb(255, 255, 255)", "the default frame colour")
        #expect(try page.node("evil-text").color == "rgb(17, 24, 39)", "the inherited default colour")
        #expect(try page.node("evil-text").height > 0)
        let box = try page.node("evil-box")
        #expect(box.display == "flex" && box.height > 0, "`#00FF00;display:none` is not a colour")
        #expect(box.backgroundColor == "rgba(0, 0, 0, 0)")
    }

    @Test("a transition plays in full, and as its reduced form under prefers-reduced-motion")
    func transitions() async throws {
        let full = try await PreviewPages.motion.value
        #expect(try full.node("slides").animationName == "sdui-slide-bottom")
        #expect(try full.node("grows").animationName == "sdui-scale")
        #expect(try full.node("appears").role == "heading" && (try full.node("appears")).animationName == "sdui-fade")
        let reduced = try await PreviewPages.motionReduced.value
        for token in ["slides", "grows", "appears"] {
            #expect(try reduced.node(token).animationName == "sdui-fade", "\(token) under reduced motion")
        }
        #expect(try reduced.node("still-reduced").animationName == "none")
        // Resolved with reduceMotion, the tree holds the reduced form alone: it plays even without the media query.
        let html = HTMLPreview.render(PreviewPages.motionTree)
        #expect(html.contains("--sdui-appear:sdui-slide-bottom 300ms ease-out both;--sdui-appear-reduced:sdui-fade 150ms ease-out both"),
                "\(html)")
    }

    @Test("the lint overlay numbers the nodes at fault and lists the findings")
    func lintOverlay() throws {
        let tree = PreviewPages.tree([
            RenderNode(primitive: "AsyncImage", version: 2, props: ["url": "https://x.test/a.png"], token: "hero"),
            PreviewPages.text("fine", "Fine", ["color": "#111827"]),
            RenderNode(primitive: "Button", version: 1, props: ["label": "Go", "height": 20, "color": "#FFFFFF",
                                                                 "background": "#FACC15"], token: "go"),
        ], background: "#FFFFFF")
        let findings = AccessibilityLint().findings(in: tree)
        #expect(findings.map(\.rule) == ["image-alt", "touch-target", "contrast"])
        let html = HTMLPreview.render(tree, lint: findings)
        #expect(html.contains(#"data-path="0" data-lint="1""#), "\(html)")
        #expect(html.contains(#"data-path="2" data-lint="2 3""#))
        #expect(!html.contains(#"data-path="1" data-lint"#))
        #expect(html.contains("<h2>Accessibility (3)</h2>") && html.contains("<b>contrast</b> (WCAG 1.4.3)"))
        #expect(HTMLPreview.render(tree, lint: []).contains("No findings."))
    }

    @Test("ARIA from each node's accessibility")
    func aria() throws {
        let html = HTMLPreview.render(PreviewPages.tree([
            RenderNode(primitive: "Row", version: 2, props: ["action": ["type": "navigate", "to": "x"]],
                       children: [PreviewPages.text("t1", "Anna")], token: "tapped"),
            RenderNode(primitive: "AsyncImage", version: 2, props: ["url": "https://x.test/a.png", "alt": "A cat"], token: "cat"),
            RenderNode(primitive: "AsyncImage", version: 2, props: ["url": "https://x.test/b.png", "decorative": true], token: "deco"),
            RenderNode(primitive: "Badge", version: 1, props: ["text": "New"], token: "badge"),
        ], background: "#FFFFFF"))
        #expect(html.contains(#"data-token="tapped" role="button" tabindex="0" aria-label="Anna""#), "\(html)")
        #expect(html.contains(#"data-token="cat""#) && html.contains(#"role="img" aria-label="A cat""#))
        #expect(html.contains(#"aria-hidden="true""#))
        #expect(html.contains(#"role="status""#))
    }

    @Test("under prefers-reduced-motion the skeleton does not shimmer")
    func reducedMotion() async throws {
        let page = try await PreviewPages.hostile.value
        let skeleton = try page.node("still")
        #expect(skeleton.animationName == "none" && near(skeleton.height, 120))
    }

    // MARK: Screenshot

    @Test("a screenshot of the preview is a PNG of the window size")
    func screenshot() async throws {
        let dir = try PreviewPages.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("preview.html"), png = dir.appendingPathComponent("preview.png")
        try Data(HTMLPreview.render(PreviewPages.layoutTree).utf8).write(to: file)
        try await HeadlessBrowser().screenshot(of: file, to: png, width: 600, height: 900)
        let bytes = [UInt8](try Data(contentsOf: png))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        try #require(bytes.count > 24)
        let be = { (i: Int) in bytes[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be(16) == 600 && be(20) == 900, "IHDR width and height")
    }
}

/// Positions agree within layout rounding.
private func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 0.6 }

// MARK: - PreviewPages

/// What the measuring script reports.
struct PreviewLayout: Decodable, Sendable {
    struct Input: Decodable, Sendable, Equatable {
        var type: String
        var value: String
        var checked: Bool
        var name: String
    }

    /// One measured element: its box, computed style and attributes.
    struct Box: Decodable, Sendable {
        var x, y, width, height, scrollHeight: Double
        var backgroundColor, backgroundImage, color, fontSize, lineHeight, fontWeight, textAlign: String
        var display, flexDirection, visibility, animationName: String
        var borderTopStyle, borderTopWidth, borderTopColor, borderRadius: String
        var kind, primitive, tag, className, text: String?
        var token, role, ariaLabel: String?
        var inputs: [Input]?
        var bottom: Double { y + height }
        var right: Double { x + width }
    }

    var viewportWidth: Double
    var title: String
    var scripts: Int
    var injected: Int
    var frame: Box
    var body: Box
    var nodes: [Node]

    /// A `[data-kind]` element (its optional fields are always present).
    struct Node: Sendable {
        var box: Box
        var kind: String { box.kind ?? "" }
        var primitive: String { box.primitive ?? "" }
        var tag: String { box.tag ?? "" }
        var className: String { box.className ?? "" }
        var text: String { box.text ?? "" }
        var token: String? { box.token }
        var role: String? { box.role }
        var ariaLabel: String? { box.ariaLabel }
        var inputs: [Input] { box.inputs ?? [] }
        var x: Double { box.x }
        var y: Double { box.y }
        var width: Double { box.width }
        var height: Double { box.height }
        var bottom: Double { box.bottom }
        var right: Double { box.right }
        var scrollHeight: Double { box.scrollHeight }
        var backgroundColor: String { box.backgroundColor }
        var backgroundImage: String { box.backgroundImage }
        var color: String { box.color }
        var fontSize: String { box.fontSize }
        var lineHeight: String { box.lineHeight }
        var fontWeight: String { box.fontWeight }
        var textAlign: String { box.textAlign }
        var display: String { box.display }
        var flexDirection: String { box.flexDirection }
        var visibility: String { box.visibility }
        var animationName: String { box.animationName }
        var borderTopStyle: String { box.borderTopStyle }
        var borderTopWidth: String { box.borderTopWidth }
        var borderTopColor: String { box.borderTopColor }
        var borderRadius: String { box.borderRadius }
    }

    enum CodingKeys: String, CodingKey { case viewportWidth, title, scripts, injected, frame, body, nodes }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        viewportWidth = try c.decode(Double.self, forKey: .viewportWidth)
        title = try c.decode(String.self, forKey: .title)
        scripts = try c.decode(Int.self, forKey: .scripts)
        injected = try c.decode(Int.self, forKey: .injected)
        frame = try c.decode(Box.self, forKey: .frame)
        body = try c.decode(Box.self, forKey: .body)
        nodes = try c.decode([Box].self, forKey: .nodes).map(Node.init)
    }

    /// The element of the node with design token `token`.
    func node(_ token: String) throws -> Node {
        let hits = nodes.filter { $0.token == token }
        guard hits.count == 1 else { throw PreviewLayoutError(message: "\(hits.count) elements with data-token \(token)") }
        return hits[0]
    }
}

/// A page without the expected report or element.
struct PreviewLayoutError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The trees under test, and their measured layouts (one Chromium run each).
enum PreviewPages {
    static let layout = Task { try await measure(layoutTree, width: 600, height: 900) }
    static let motion = Task { try await measure(motionTree, width: 390, height: 844) }
    static let motionReduced = Task {
        try await measure(motionTree, width: 390, height: 844, extraArguments: ["--force-prefers-reduced-motion"])
    }
    /// Nodes with `appear` transitions, as the resolver writes them (each with its reduced form).
    static var motionTree: RenderTree {
        func moving(_ token: String, _ motion: JSONValue, _ extra: [String: JSONValue] = [:]) -> RenderNode {
            let t = try! Motion.transition(["appear": motion], at: "transition", reduceMotion: false)
            return text(token, token, extra.merging(["transition": t]) { a, _ in a })
        }
        return tree([
            moving("slides", ["type": "slide", "edge": "bottom", "duration": 300, "easing": "easeOut"]),
            moving("grows", ["type": "scale", "spring": ["response": 0.4, "damping": 0.8]]),
            moving("appears", ["type": "fade", "duration": 200], ["accessibilityHeading": true]),
            moving("still-reduced", ["type": "slide", "duration": 300, "reduced": ["type": "none"]]),
        ], background: "#FFFFFF")
    }
    static let hostile = Task {
        try await measure(hostileTree, title: hostileTitle, width: 390, height: 844,
                          extraArguments: ["--force-prefers-reduced-motion"])
    }

    /// Renders `tree`, appends the measuring script, loads it in Chromium and
    /// decodes what the script wrote.
    static func measure(_ tree: RenderTree, title: String? = nil, width: Int, height: Int,
                        extraArguments: [String] = []) async throws -> PreviewLayout {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("page.html")
        try Data(instrumented(HTMLPreview.render(tree, title: title)).utf8).write(to: file)
        let dom = try await HeadlessBrowser().dumpDOM(of: file, width: width, height: height,
                                                      extraArguments: extraArguments)
        return try JSONDecoder().decode(PreviewLayout.self, from: try report(in: dom))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sdui-preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The preview with the measuring script before `</body>`.  The CSP,
    /// which forbids every script, is taken out so the script can run; the
    /// escaping alone must then keep hostile values inert.
    static func instrumented(_ html: String) -> String {
        html.replacingOccurrences(of: HTMLPreview.contentSecurityPolicy, with: "")
            .replacingOccurrences(of: "</body>", with: "<pre id=\"layout\"></pre>\n<script>\(script)</script>\n</body>")
    }

    /// The JSON report, base64 in `<pre id="layout">` so no escaping gets in the way.
    static func report(in dom: String) throws -> Data {
        guard let start = dom.range(of: "<pre id=\"layout\">"),
              let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex),
              let data = Data(base64Encoded: String(dom[start.upperBound..<end.lowerBound])) else {
            throw PreviewLayoutError(message: "no layout report in the DOM:\n\(dom.prefix(2000))")
        }
        return data
    }

    /// Measures the frame, the body and every `[data-kind]` element on load.
    static let script = """
        window.addEventListener('load', function () {
          function box(el) {
            var r = el.getBoundingClientRect(), s = getComputedStyle(el);
            return { x: r.x, y: r.y, width: r.width, height: r.height, scrollHeight: el.scrollHeight,
              backgroundColor: s.backgroundColor, backgroundImage: s.backgroundImage, color: s.color,
              fontSize: s.fontSize, lineHeight: s.lineHeight, fontWeight: s.fontWeight, textAlign: s.textAlign,
              display: s.display, flexDirection: s.flexDirection, visibility: s.visibility,
              animationName: s.animationName, borderTopStyle: s.borderTopStyle,
              borderTopWidth: s.borderTopWidth, borderTopColor: s.borderTopColor,
              borderRadius: s.borderTopLeftRadius };
          }
          var nodes = Array.prototype.map.call(document.querySelectorAll('[data-kind]'), function (el) {
            var m = box(el);
            m.kind = el.getAttribute('data-kind'); m.primitive = el.getAttribute('data-primitive');
            m.token = el.getAttribute('data-token'); m.tag = el.tagName.toLowerCase();
            m.className = el.className; m.text = el.textContent; m.role = el.getAttribute('role');
            m.ariaLabel = el.getAttribute('aria-label');
            m.inputs = Array.prototype.map.call(el.querySelectorAll('input'), function (i) {
              return { type: i.type, value: i.value, checked: i.checked, name: i.name };
            });
            return m;
          });
          var report = { viewportWidth: window.innerWidth, title: document.title,
            scripts: document.scripts.length, injected: document.querySelectorAll('[id^=pwned]').length,
            frame: box(document.querySelector('.sdui-frame')), body: box(document.body), nodes: nodes };
          var bytes = new TextEncoder().encode(JSON.stringify(report)), bin = '';
          for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
          document.getElementById('layout').textContent = btoa(bin);
        });
        """

    /// The class a node's element must carry.
    static func expectedClass(_ n: PreviewLayout.Node) -> String {
        switch n.kind {
        case "placeholder": return "sdui-placeholder"
        case "skeleton": return "sdui-skeleton"
        default: return "sdui-" + n.primitive.lowercased()
        }
    }

    /// A screen whose root Column has `background` and scrolls.
    static func tree(_ children: [RenderNode], background: JSONValue, issues: [RenderIssue] = []) -> RenderTree {
        let root = RenderNode(primitive: "Column", version: 3,
                              props: ["background": background, "scroll": .bool(true)],
                              children: children, token: "root")
        return RenderTree(screen: "preview_test", renderedScreen: "preview_test", theme: "test",
                          themeSource: .sdk, mode: .light, root: root, issues: issues, events: [])
    }

    /// A Text node with design token `token`.
    static func text(_ token: String, _ s: String, _ props: [String: JSONValue] = [:]) -> RenderNode {
        RenderNode(primitive: "Text", version: 4, props: props.merging(["text": .string(s)]) { _, new in new },
                   token: token)
    }

    /// A typography object in the shape the resolver produces.
    static func typography(size: Int, lineHeight: Int, weight: Int = 400) -> JSONValue {
        .object(["size": .int(Int64(size)), "lineHeight": .int(Int64(lineHeight)),
                 "weight": .int(Int64(weight)), "family": .string("system")])
    }

    /// Every primitive, a placeholder and a skeleton, each with its own token.
    static var layoutTree: RenderTree {
        tree([stack, row,
              text("title", "Welcome back", ["color": .string("#336699"), "textAlign": .string("CENTER"),
                                             "style": typography(size: 20, lineHeight: 28, weight: 700)]),
              RenderNode(primitive: "Spacer", version: 1, props: ["size": .int(24)], token: "gap"),
              text("translucent", "Half red", ["color": .string("#FF000080")]),
              text("clamped", String(repeating: "A long line of words that wraps. ", count: 20),
                   ["maxLines": .int(2), "style": typography(size: 14, lineHeight: 20)]),
              RenderNode.placeholder(.unknownPrimitive, primitive: "Foo", version: 2, token: "missing"),
              RenderNode.skeleton(token: "loading"),
              form,
              RenderNode(primitive: "Carousel", version: 1, children: [text("k1", "one"), text("k2", "two")],
                         token: "carousel"),
              badges,
              RenderNode(primitive: "Badge", version: 1, props: ["text": .string("New")], token: "new")],
             background: .string("#F5F5F7"))
    }

    /// A padded, bordered Column of two Texts and a width-less image.
    static var stack: RenderNode {
        RenderNode(primitive: "Column", version: 3, props: [
            "padding": .object(["top": .int(12), "start": .int(20), "end": .int(8)]), "spacing": .int(16),
            "background": .string("#FFEEDD"), "cornerRadius": .int(8),
            "border": .object(["width": .int(2), "color": .string("#112233")]),
        ], children: [
            text("s1", "First", ["style": typography(size: 16, lineHeight: 24)]),
            text("s2", "Second", ["style": typography(size: 14, lineHeight: 20)]),
            RenderNode(primitive: "AsyncImage", version: 2, props: ["height": .int(30)], token: "s3"),
        ], token: "stack")
    }

    /// A centred Row: image, text, flexible spacer, outline button.
    static var row: RenderNode {
        RenderNode(primitive: "Row", version: 2, props: ["spacing": .int(10), "alignment": .string("CENTER")], children: [
            RenderNode(primitive: "AsyncImage", version: 2, props: [
                "url": .string("https://cdn.example.test/avatar.png"), "width": .int(40), "height": .int(40),
                "cornerRadius": .int(20), "placeholderColor": .string("#E8EAF6"), "accessibilityLabel": .string("Avatar"),
            ], token: "r1"),
            text("r2", "Ada"),
            RenderNode(primitive: "Spacer", version: 1, props: ["flexible": .bool(true)], token: "r3"),
            RenderNode(primitive: "Button", version: 1, props: ["label": .string("Go"), "style": .string("outline")],
                       token: "r4"),
        ], token: "row")
    }

    /// A centred Row: a title and a red count badge.
    static var badges: RenderNode {
        RenderNode(primitive: "Row", version: 2, props: ["spacing": .int(8), "alignment": .string("CENTER")], children: [
            text("inbox", "Inbox", ["style": typography(size: 20, lineHeight: 28)]),
            RenderNode(primitive: "Badge", version: 1, props: [
                "text": .string("12"), "background": .string("#DC2626"), "color": .string("#FFFFFF"),
            ], token: "count"),
        ], token: "badges")
    }

    /// A Column of the form primitives.
    static var form: RenderNode {
        func option(_ v: String) -> JSONValue { .object(["label": .string(v.uppercased()), "value": .string(v)]) }
        return RenderNode(primitive: "Column", version: 3, props: ["spacing": .int(12)], children: [
            RenderNode(primitive: "Button", version: 1, props: [
                "label": .string("Pay 12.50"), "style": .string("filled"), "background": .string("#1565C0"),
                "color": .string("#FFFFFF"), "fullWidth": .bool(true), "height": .int(48), "cornerRadius": .int(12),
                "padding": .object(["horizontal": .int(16)]),
            ], token: "pay"),
            RenderNode(primitive: "TextField", version: 1, props: [
                "key": .string("email"), "label": .string("Email"), "placeholder": .string("you@example.test"),
                "value": .string("a@b.test"),
            ], token: "email"),
            RenderNode(primitive: "TextField", version: 1, props: ["label": .string("Password"), "secure": .bool(true)],
                       token: "password"),
            RenderNode(primitive: "Slider", version: 1, props: [
                "label": .string("How old are you?"), "min": .int(16), "max": .int(90), "step": .int(1),
                "value": .int(30), "unit": .string("years"), "tint": .string("#FF5722"),
            ], token: "age"),
            RenderNode(primitive: "Choice", version: 1, props: [
                "mode": .string("single"), "style": .string("cards"), "options": .array(["a", "b", "c"].map(option)),
                "selected": .string("b"),
            ], token: "goal"),
            RenderNode(primitive: "Choice", version: 1, props: [
                "mode": .string("multi"), "style": .string("list"), "options": .array(["x", "y", "z"].map(option)),
                "selected": .array([.string("x"), .string("z")]),
            ], token: "areas"),
            RenderNode(primitive: "Toggle", version: 1, props: [
                "value": .bool(true), "tint": .string("#1565C0"), "label": .string("Keep me signed in"),
            ], token: "remember"),
        ], token: "form")
    }

    static let hostileTitle = HostileStrings.title
    static let hostileText = HostileStrings.text
    static let hostileToken = HostileStrings.token
    static let hostileValue = HostileStrings.value
    static let hostileLabel = HostileStrings.label
    static let hostilePrimitive = HostileStrings.primitive
    static let badColour = JSONValue.string("red;}body{display:none")

    /// Values that try to break out of text, attributes, CSS and url().
    static var hostileTree: RenderTree {
        tree([
            text("evil-text", hostileText, ["color": badColour]),
            RenderNode(primitive: "Column", version: 3, props: ["background": .string("#00FF00;display:none")],
                       children: [text("inside", "still shown")], token: "evil-box"),
            text(hostileToken, "token"),
            RenderNode(primitive: "AsyncImage", version: 2, props: [
                "url": .string(#"https://cdn.example.test/a.png");background:url("https://evil.test/x"#),
                "width": .int(40), "height": .int(40), "placeholderColor": .string("#00FF00"),
            ], token: "evil-url"),
            RenderNode(primitive: "AsyncImage", version: 2,
                       props: ["url": .string("javascript:alert(1)"), "width": .int(40), "height": .int(40)],
                       token: "js-url"),
            RenderNode(primitive: "TextField", version: 1, props: ["value": .string(hostileValue)], token: "evil-field"),
            RenderNode(primitive: "Button", version: 1, props: ["label": .string(hostileLabel), "background": .string("#12345")],
                       token: "evil-button"),
            RenderNode.placeholder(.badContent, primitive: hostilePrimitive, token: "evil-placeholder"),
            RenderNode(primitive: "Choice", version: 1, props: [
                "options": .array([.object(["label": .string(#"<u id="pwned5">"#), "value": .string("u")])]),
            ], token: "evil-choice"),
            RenderNode.skeleton(token: "still"),
        ], background: badColour,
             issues: [RenderIssue(.badContent, token: "evil-placeholder", path: "root", "<b>resolver note</b>")])
    }
}


