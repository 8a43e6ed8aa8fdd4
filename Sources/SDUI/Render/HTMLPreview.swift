// HTMLPreview.swift - a render tree as one self-contained HTML page, so a
// person can look at a resolved screen in any browser, and the tests can
// measure its layout in a real one.
import Foundation
internal import Crypto
import SDUICore

/// Renders a ``RenderTree`` as an HTML5 document: inline CSS only, no
/// scripts, no external resources except each image's own URL.
///
/// The screen sits in a 390 px phone frame with the root's background.
/// Each built-in primitive is drawn by the function its ``PrimitiveSpec``
/// row names (`HTMLPreview+Primitives.swift`): Column and Row are
/// flexboxes, Text is styled from its typography object, AsyncImage is a
/// sized box with the image as its background, Spacer is a flexible or
/// fixed gap, and Button, TextField, Slider, Choice and Toggle are real form
/// elements.  A primitive without a row (an app's own) is a plain column of
/// its children.  Placeholders are dashed boxes naming what could not be
/// drawn; skeletons are shimmering grey blocks.  Every element of a
/// node carries `data-kind`, `data-primitive` (and `data-token`, `data-reason`
/// when set) and the class `sdui-<primitive lowercased>`, `sdui-placeholder`
/// or `sdui-skeleton`.
///
/// Padding is inner padding for containers (Column, Row, unknown primitives)
/// and outer spacing (CSS margin) for every other primitive, as the tokens
/// use it (`Button` with `padding.horizontal` is inset from the edges).
///
/// **Safety.**  Every text and attribute value is HTML-escaped.  A prop
/// reaches CSS only as a valid hex colour, a finite number, a keyword taken
/// from a fixed table, or an `https://` URL percent-encoded inside
/// `url("…")`.  A Content-Security-Policy forbids scripts as a second line of
/// defence.
public enum HTMLPreview {
    /// The whole document for `tree`; `title` defaults to the screen's name.
    public static func render(_ tree: RenderTree, title: String? = nil) -> String {
        var renderer = Renderer()
        renderer.node(tree.root, in: .column)
        let root = renderer.out
        let heading = title ?? "\(tree.renderedScreen) · SDUI preview"
        return document(title: heading, frame: frame(tree, content: root), issues: issueList(tree.issues),
                        language: language(tree), direction: direction(tree))
    }

    /// The document for `tree` with the accessibility lint's `findings`
    /// drawn over it: each element a finding names is outlined and carries
    /// the findings' numbers (`data-lint`), and the numbered findings are
    /// listed under the frame (`sdui render --format html --lint`).
    public static func render(_ tree: RenderTree, title: String? = nil, lint findings: [AccessibilityFinding]) -> String {
        let paths = Dictionary(RenderNodeID.all(in: tree).map { ($0.id, pathText($0.path)) },
                               uniquingKeysWith: { first, _ in first })
        var marks: [String: [Int]] = [:]
        for (i, f) in findings.enumerated() {
            if let p = paths[f.node] { marks[p, default: []].append(i + 1) }
        }
        var renderer = Renderer(annotatesPaths: true)
        renderer.lintMarks = marks
        renderer.node(tree.root, in: .column)
        let heading = title ?? "\(tree.renderedScreen) · SDUI preview"
        return document(title: heading, frame: frame(tree, content: renderer.out),
                        issues: lintList(findings) + issueList(tree.issues),
                        language: language(tree), direction: direction(tree))
    }

    /// The numbered findings under the frame.
    static func lintList(_ findings: [AccessibilityFinding]) -> String {
        guard !findings.isEmpty else {
            return "<section class=\"sdui-lint\"><h2>Accessibility</h2><p>No findings.</p></section>"
        }
        let items = findings.map { f in
            "<li class=\"sdui-lint-\(f.severity.rawValue)\"><b>\(escape(f.rule))</b>"
                + (f.wcag.map { " (WCAG \(escape($0)))" } ?? "") + " <code>\(escape(f.node))</code>: \(escape(f.message))</li>"
        }.joined()
        return "<section class=\"sdui-lint\"><h2>Accessibility (\(findings.count))</h2><ol>\(items)</ol></section>"
    }

    /// The phone frame of `tree` alone (no document around it), every
    /// node's element carrying its `data-path`: what the playground puts
    /// in its page.
    package static func annotatedFrame(_ tree: RenderTree) -> String {
        var renderer = Renderer(annotatesPaths: true)
        renderer.node(tree.root, in: .column)
        return frame(tree, content: renderer.out)
    }

    /// The element of the node at `path` in `tree` (annotated as
    /// ``annotatedFrame(_:)``), drawn as it sits in its parent; the whole
    /// frame for the root (`[]`).  Nil when `tree` has no node there.
    package static func annotatedNode(in tree: RenderTree, at path: [Int]) -> String? {
        guard !path.isEmpty else { return annotatedFrame(tree) }
        var parent = tree.root
        for i in path.dropLast() {
            guard parent.children.indices.contains(i) else { return nil }
            parent = parent.children[i]
        }
        guard let last = path.last, parent.children.indices.contains(last) else { return nil }
        var renderer = Renderer(annotatesPaths: true, at: path)
        renderer.node(parent.children[last], in: childAxis(of: parent))
        return renderer.out
    }

    /// The axis `parent` lays its children along: a Row's are in a row,
    /// every other node's in a column (``row(_:_:_:)``, ``column(_:_:_:)``).
    static func childAxis(of parent: RenderNode) -> Axis {
        parent.kind == .primitive && parent.primitive == "Row" ? .row : .column
    }

    /// A node path as `data-path` writes it: child indexes joined by dots.
    package static func pathText(_ path: [Int]) -> String {
        path.map(String.init).joined(separator: ".")
    }

    /// `text` escaped for HTML text and double-quoted attributes (``escape(_:)``).
    package static func escaped(_ text: String) -> String { escape(text) }

    /// The stylesheet of the preview's elements, for a page that embeds
    /// ``annotatedFrame(_:)``.
    package static var elementStylesheet: String { stylesheet }

    /// The CSP meta element: no scripts, inline styles, HTTPS images only.
    static let contentSecurityPolicy =
        #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src https:">"#

    /// Wraps the frame and the issue list into a complete document.
    static func document(title: String, frame: String, issues: String, language: String = "en",
                         direction: String = "ltr") -> String {
        """
        <!DOCTYPE html>
        <html lang="\(escape(language))" dir="\(direction)">
        <head>
        <meta charset="utf-8">
        \(contentSecurityPolicy)
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>\(stylesheet)</style>
        </head>
        <body>
        \(frame)
        \(issues)
        </body>
        </html>

        """
    }

    /// The page the accessibility lint's layout pass loads: the annotated
    /// frame (every node's element with its `data-path`) `width` px wide,
    /// and `script`, the only script its Content-Security-Policy admits
    /// (by its SHA-256), which measures the page.
    package static func layoutProbe(_ tree: RenderTree, width: Int, script: String) -> String {
        let hash = Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()
        let policy = #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; "#
            + #"style-src 'unsafe-inline'; img-src https:; script-src 'sha256-\#(hash)'">"#
        return document(title: "\(tree.renderedScreen) · layout", frame: annotatedFrame(tree), issues: "",
                        language: language(tree), direction: direction(tree))
            .replacingOccurrences(of: contentSecurityPolicy, with: policy)
            .replacingOccurrences(of: "</style>", with: ".sdui-frame{width:\(width)px}</style>")
            .replacingOccurrences(of: "</body>", with: "<script>\(script)</script>\n</body>")
    }

    /// The page's language: the root's `locale` (a canonical tag), or `en`.
    static func language(_ tree: RenderTree) -> String {
        tree.root.props["locale"]?.stringValue ?? "en"
    }

    /// The page's direction: the root's `direction` when it is `rtl`, else `ltr`.
    static func direction(_ tree: RenderTree) -> String {
        tree.root.props["direction"]?.stringValue == "rtl" ? "rtl" : "ltr"
    }

    /// The phone frame: the root's background, the theme and mode as data.
    static func frame(_ tree: RenderTree, content: String) -> String {
        var css = CSS()
        css.set("background-color", color(tree.root.props["background"]))
        var attrs = [("class", "sdui-frame sdui-mode-\(tree.mode.rawValue)"), ("data-screen", tree.screen),
                     ("data-rendered-screen", tree.renderedScreen), ("data-theme", tree.theme),
                     ("data-mode", tree.mode.rawValue)]
        if tree.root.props["locale"] != nil {   // a page that embeds the frame mirrors it too
            attrs += [("lang", language(tree)), ("dir", direction(tree))]
        }
        if !css.isEmpty { attrs.append(("style", css.text)) }
        return "<div\(attributes(attrs))>\n\(content)\n</div>"
    }

    /// The resolution issues under the frame, so a placeholder's cause is on the page.
    static func issueList(_ issues: [RenderIssue]) -> String {
        guard !issues.isEmpty else { return "" }
        let items = issues.map { "<li>\(escape($0.description))</li>" }.joined()
        return "<section class=\"sdui-issues\"><h2>Issues (\(issues.count))</h2><ol>\(items)</ol></section>"
    }

    /// The fixed stylesheet; per-node values go into `style` attributes.
    static let stylesheet = """
        *,*::before,*::after{box-sizing:border-box}
        html,body{margin:0;padding:0}
        body{background:#D1D5DB;color:#111827;
          font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        .sdui-frame{width:390px;min-height:100vh;margin:0 auto;background:#FFFFFF;
          display:flex;flex-direction:column;overflow-x:hidden}
        .sdui-mode-dark{background:#000000;color:#F3F4F6;color-scheme:dark}
        .sdui-frame>[data-kind]{flex:1 0 auto}
        [data-kind]{min-width:0}
        .sdui-column,.sdui-unknown{display:flex;flex-direction:column}
        .sdui-row{display:flex;flex-direction:row}
        .sdui-text{margin:0;white-space:pre-line;overflow-wrap:anywhere}
        .sdui-asyncimage{background-position:center;background-repeat:no-repeat;background-size:cover}
        .sdui-button{font:inherit;font-weight:600;height:44px;padding:0 16px;border-radius:8px;
          border:1px solid transparent;cursor:pointer}
        .sdui-textfield,.sdui-slider{display:flex;flex-direction:column;gap:6px}
        .sdui-field-label{font-size:14px;font-weight:500;display:flex;justify-content:space-between;gap:8px}
        .sdui-field-message{display:block;font-size:13px;color:#b3261e;margin-top:4px}
        .sdui-textfield input{font:inherit;height:44px;padding:0 12px;border:1px solid #D1D5DB;
          border-radius:8px;background:#FFFFFF;color:#111827}
        .sdui-slider input{width:100%;margin:0}
        .sdui-choice{border:0;margin:0;padding:0;min-inline-size:0;display:flex;flex-direction:column;gap:8px}
        .sdui-choice legend{padding:0;margin-bottom:8px}
        .sdui-option{display:flex;align-items:center;gap:10px;cursor:pointer}
        .sdui-choice-cards .sdui-option{padding:12px 16px;border:1px solid #D1D5DB;border-radius:12px;
          background:#FFFFFF;color:#111827}
        .sdui-choice-cards .sdui-option:has(input:checked){border-color:#2563EB;background:#EFF6FF}
        .sdui-choice-list{gap:0}
        .sdui-choice-list .sdui-option{padding:12px 0;border-bottom:1px solid #E5E7EB}
        .sdui-toggle{display:inline-flex;align-items:center;gap:10px;cursor:pointer}
        .sdui-toggle input{appearance:none;margin:0;width:51px;height:31px;border-radius:16px;
          background:#D1D5DB;position:relative;flex:none;cursor:pointer}
        .sdui-toggle input::before{content:"";position:absolute;top:2px;left:2px;width:27px;height:27px;
          border-radius:50%;background:#FFFFFF;box-shadow:0 1px 3px rgba(0,0,0,.3)}
        .sdui-toggle input:checked{background:var(--sdui-tint,#34C759)}
        .sdui-toggle input:checked::before{left:22px}
        .sdui-placeholder{min-height:48px;display:flex;align-items:center;justify-content:center;
          padding:8px 12px;border:2px dashed #DC2626;border-radius:8px;background:#FEF2F2;color:#991B1B;
          font:500 13px/1.3 ui-monospace,Menlo,Consolas,monospace;text-align:center;overflow-wrap:anywhere}
        .sdui-skeleton{height:120px;border-radius:12px;display:flex;align-items:center;justify-content:center;
          color:#6B7280;font-size:12px;background:linear-gradient(90deg,#E5E7EB 25%,#F3F4F6 37%,#E5E7EB 63%);
          background-size:400% 100%;animation:sdui-shimmer 1.4s ease infinite}
        @keyframes sdui-shimmer{from{background-position:100% 50%}to{background-position:0 50%}}
        @media (prefers-reduced-motion:reduce){.sdui-skeleton{animation:none}}
        @keyframes sdui-fade{from{opacity:0}}
        @keyframes sdui-slide-top{from{opacity:0;transform:translateY(-24px)}}
        @keyframes sdui-slide-bottom{from{opacity:0;transform:translateY(24px)}}
        @keyframes sdui-slide-leading{from{opacity:0;transform:translateX(-24px)}}
        @keyframes sdui-slide-trailing{from{opacity:0;transform:translateX(24px)}}
        @keyframes sdui-scale{from{opacity:0;transform:scale(.9)}}
        .sdui-motion{animation:var(--sdui-appear)}
        @media (prefers-reduced-motion:reduce){.sdui-motion{animation:var(--sdui-appear-reduced)}}
        [data-lint]{outline:3px solid #DC2626;outline-offset:1px;position:relative}
        [data-lint]::after{content:attr(data-lint);position:absolute;top:-9px;left:-9px;z-index:1;
          background:#DC2626;color:#FFFFFF;font:600 11px/16px system-ui,sans-serif;padding:0 5px;border-radius:8px}
        .sdui-lint{width:390px;margin:16px auto;padding:0 12px;font-size:12px;color:#374151}
        .sdui-lint h2{font-size:13px}
        .sdui-lint-warning{color:#92400E}
        .sdui-issues{width:390px;margin:16px auto;padding:0 12px;font-size:12px;color:#374151}
        .sdui-issues h2{font-size:13px}
        """
}

// MARK: - Nodes

extension HTMLPreview {
    /// The main axis of a node's parent, which decides how a leaf fills it.
    enum Axis { case column, row }

    /// How a primitive is drawn (a row's ``PrimitiveSpec/preview``): writes
    /// the HTML of node `n`, which sits in a parent of main axis `axis`,
    /// into the renderer, which also writes its children on request.
    typealias Draw = @Sendable (inout Renderer, RenderNode, Axis) -> Void

    /// Walks the tree, writing its HTML into ``out`` as it goes: a
    /// container's children are written in place between its tags, never
    /// built as a string and copied into their parent's, so the work is
    /// proportional to the page, however deep the tree.  Holds the counter
    /// that names radio groups.
    ///
    /// With ``annotatesPaths`` (the playground's pages), each node's element
    /// also carries `data-path`, the node's child indexes from the root
    /// joined by dots (`""` for the root), so a page can replace one node's
    /// element when only that node changed; a radio group is then named by
    /// its node's path, so a node drawn again alone keeps its group's name.
    struct Renderer {
        private var groups = 0
        /// The HTML written so far.
        private(set) var out = ""
        /// Whether elements carry `data-path`.
        let annotatesPaths: Bool
        /// The path of the node being written (kept only when annotating).
        private var path: [Int]
        /// The `data-path` the next element written takes: the element
        /// that opens the node just begun.
        private var pendingPath: String?
        /// The lint findings' numbers by node path (``render(_:title:lint:)``),
        /// written as `data-lint` beside `data-path`.
        var lintMarks: [String: [Int]] = [:]

        /// A renderer; `path` is where the first node written sits.
        init(annotatesPaths: Bool = false, at path: [Int] = []) {
            self.annotatesPaths = annotatesPaths
            self.path = path
        }

        /// Writes the HTML of `n` and its children, `n` sitting in a parent of `axis`.
        mutating func node(_ n: RenderNode, in axis: Axis) {
            if annotatesPaths { pendingPath = HTMLPreview.pathText(path) }
            switch n.kind {
            case .placeholder: write(HTMLPreview.placeholder(n, in: axis))
            case .skeleton: write(HTMLPreview.skeleton(n, in: axis))
            case .primitive: primitive(n, in: axis)
            }
            // Every drawing function opens its node's element with its first write.
            assert(pendingPath == nil)
        }

        /// Draws a primitive node with its row of ``PrimitiveSpec/builtIn``;
        /// a primitive without one (an app's own) is a plain column.
        private mutating func primitive(_ n: RenderNode, in axis: Axis) {
            if let spec = PrimitiveSpec.named(n.primitive) {
                spec.preview(&self, n, axis)
            } else {
                unknown(n)
            }
        }

        /// A primitive this preview does not know: a plain column of its children.
        private mutating func unknown(_ n: RenderNode) {
            write(HTMLPreview.openingTag("div", n, extraClass: "sdui-unknown", css: CSS()))
            children(n, axis: .column)
            write("</div>")
        }

        /// Appends `html` to the page; the first write of a node (its
        /// opening tag, `<tag …`) takes the node's `data-path` when annotating.
        mutating func write(_ html: String) {
            guard let p = pendingPath else {
                out += html
                return
            }
            pendingPath = nil
            let bytes = html.utf8
            assert(bytes.first == UInt8(ascii: "<"))
            // After the tag name: the first space or '>'.
            let cut = bytes.firstIndex { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ">") } ?? bytes.endIndex
            out += html[..<cut]
            out += " data-path=\"\(HTMLPreview.escape(p))\""
            if let marks = lintMarks[p] { out += " data-lint=\"\(marks.map(String.init).joined(separator: " "))\"" }
            out += html[cut...]
        }

        /// Writes the children of `n`, one per line, in a parent of `axis`.
        mutating func children(_ n: RenderNode, axis: Axis) {
            guard !n.children.isEmpty else { return }
            for (i, child) in n.children.enumerated() {
                out += "\n"
                if annotatesPaths { path.append(i) }
                node(child, in: axis)
                if annotatesPaths { path.removeLast() }
            }
            out += "\n"
        }

        /// A name for the next radio group, unique on the page:
        /// `sdui-choice-1`, …; `sdui-choice-p0.3` by path when annotating.
        mutating func nextGroup() -> String {
            if annotatesPaths { return "sdui-choice-p" + HTMLPreview.pathText(path) }
            groups += 1
            return "sdui-choice-\(groups)"
        }
    }

    /// A dashed box saying what could not be drawn and why.
    static func placeholder(_ n: RenderNode, in axis: Axis) -> String {
        var css = CSS()
        css.set("flex", axis == .row ? "1 1 0" : nil)
        let label = "Unsupported" + (n.primitive.isEmpty ? "" : ": \(n.primitive)")
            + (n.version > 0 && !n.primitive.isEmpty ? "@\(n.version)" : "")
            + " (\(n.reason ?? "unknown"))"
        let extra = [("role", "note"), ("title", n.token.map { "token \($0)" } ?? label)]
        return element("div", n, css: css, attributes: extra, content: escape(label))
    }

    /// A grey shimmering block standing for a token that is on its way.
    static func skeleton(_ n: RenderNode, in axis: Axis) -> String {
        var css = CSS()
        css.set("flex", axis == .row ? "1 1 0" : nil)
        let label = "Loading" + (n.token.map { " \($0)" } ?? "…")
        let extra = [("role", "status"), ("aria-busy", "true"), ("aria-label", label)]
        return element("div", n, css: css, attributes: extra,
                       content: "<span class=\"sdui-skeleton-label\">\(escape(label))</span>")
    }
}


// MARK: - Elements and attributes

extension HTMLPreview {
    /// An element for node `n` with its class, data attributes and style.
    static func element(_ tag: String, _ n: RenderNode, extraClass: String? = nil, css: CSS,
                        attributes extra: [(String, String)] = [], content: String) -> String {
        "\(openingTag(tag, n, extraClass: extraClass, css: css, attributes: extra))\(content)</\(tag)>"
    }

    /// The opening tag of ``element(_:_:extraClass:css:attributes:content:)``.
    static func openingTag(_ tag: String, _ n: RenderNode, extraClass: String? = nil, css: CSS,
                           attributes extra: [(String, String)] = []) -> String {
        var attrs = [("class", ([className(n)] + [extraClass].compactMap { $0 }).joined(separator: " ")),
                     ("data-kind", n.kind.rawValue), ("data-primitive", n.primitive)]
        if n.version > 0 { attrs.append(("data-version", String(n.version))) }
        if let token = n.token { attrs.append(("data-token", token)) }
        if let reason = n.reason { attrs.append(("data-reason", reason)) }
        var css = css
        if let (full, reduced) = appear(n) {
            attrs[0].1 += " sdui-motion"
            css.set("--sdui-appear", full)
            css.set("--sdui-appear-reduced", reduced)
        }
        if !css.isEmpty { attrs.append(("style", css.text)) }
        return "<\(tag)\(attributes(attrs + aria(n, tag: tag) + extra))>"
    }

    /// A node's `appear` motion as CSS animations: the full one and its
    /// reduced form, which `prefers-reduced-motion: reduce` plays instead.
    /// A tree resolved with `reduceMotion` holds only the reduced form, so
    /// both are it.  Every value comes from a checked ``Motion``: a
    /// keyframes name from its kind and edge, a number of milliseconds, an
    /// easing from a fixed table.
    static func appear(_ n: RenderNode) -> (full: String, reduced: String)? {
        guard let v = n.props["transition"]?["appear"], let m = try? Motion(value: v, at: "appear") else { return nil }
        func css(_ m: Motion) -> String {
            guard m.kind != .none, m.milliseconds > 0 else { return "none" }
            let name: String
            switch m.kind {
            case .fade, .none: name = "sdui-fade"
            case .slide: name = "sdui-slide-\((m.edge ?? .bottom).rawValue)"
            case .scale: name = "sdui-scale"
            }
            let easing: String
            if let s = m.spring {
                // A spring as the cubic-bezier that overshoots less the more it is damped.
                easing = "cubic-bezier(.2,\(format(1 + (1 - s.damping) * 0.6)),.3,1)"
            } else {
                easing = ["linear": "linear", "easeIn": "ease-in", "easeOut": "ease-out", "easeInOut": "ease-in-out"][m.easing ?? ""]
                    ?? "ease-in-out"
            }
            return "\(name) \(format(m.milliseconds))ms \(easing) both"
        }
        // The tree's reduced-only form carries no `reduced`: then it is its own.
        return (css(m), css(v["reduced"] == nil ? m : m.reduced))
    }

    /// The ARIA of a node's element, from its derived accessibility
    /// (``RenderNode/accessibility``): `aria-hidden` for a hidden node; the
    /// role where the element has none of its own (an image, a tapped text
    /// or group as a focusable button or link, a status, a heading); an
    /// `aria-label` when the label is not the element's own text (given
    /// as `accessibilityLabel` or `alt`, or joined from a tapped group's
    /// children); the hint as `aria-description`; `aria-required`.
    static func aria(_ n: RenderNode, tag: String) -> [(String, String)] {
        guard let a = n.accessibility else { return [] }
        if a.hidden { return [("aria-hidden", "true")] }
        var out: [(String, String)] = []
        let native = ["button", "input", "label", "fieldset", "select", "textarea"].contains(tag)
        switch a.role {
        case .image: out.append(("role", "img"))
        case .button where !native: out += [("role", "button"), ("tabindex", "0")]
        case .link: out += [("role", "link"), ("tabindex", "0")]
        case .status: out.append(("role", "status"))
        case .text where a.traits.contains(.header): out += [("role", "heading"), ("aria-level", "2")]
        default: break
        }
        if let label = a.label, a.role == .image || ["accessibilityLabel", "alt", "children"].contains(a.labelSource) {
            out.append(("aria-label", label))
        }
        if let hint = a.hint { out.append(("aria-description", hint)) }
        if a.traits.contains(.required) { out.append(("aria-required", "true")) }
        return out
    }

    /// `sdui-<primitive lowercased>` (letters, digits, `-`, `_` only), or
    /// `sdui-placeholder` / `sdui-skeleton`.
    static func className(_ n: RenderNode) -> String {
        switch n.kind {
        case .placeholder: return "sdui-placeholder"
        case .skeleton: return "sdui-skeleton"
        case .primitive:
            let name = n.primitive.lowercased().unicodeScalars.filter {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
            return "sdui-" + String(String.UnicodeScalarView(name))
        }
    }

    /// ` name="value"` pairs, values escaped; `checked` with an empty value
    /// is written as the bare boolean attribute.
    static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { name, value in
            name == "checked" && value.isEmpty ? " checked" : " \(name)=\"\(escape(value))\""
        }.joined()
    }

    /// `s` with `& < > " '` replaced by entities and NUL by U+FFFD, safe in
    /// text and in double-quoted attributes.
    static func escape(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            case "\0": out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// A scalar prop as text (strings, numbers, booleans); nil otherwise.
    static func display(_ v: JSONValue?) -> String? {
        switch v {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .double(let d)? where d.isFinite: return format(d)
        case .bool(let b)?: return String(b)
        default: return nil
        }
    }
}

// MARK: - Props to CSS

extension HTMLPreview {
    /// Inline CSS declarations.  Only the validators below produce values,
    /// so nothing a token says reaches CSS unchecked.
    struct CSS {
        private var declarations: [(property: String, value: String)] = []

        /// Sets `property` (replacing an earlier value); nil leaves it unset.
        mutating func set(_ property: String, _ value: String?) {
            guard let value else { return }
            if let i = declarations.firstIndex(where: { $0.property == property }) {
                declarations[i].value = value
            } else {
                declarations.append((property, value))
            }
        }

        /// True when nothing was set.
        var isEmpty: Bool { declarations.isEmpty }
        /// `property:value;…` for a `style` attribute (escaped by the caller).
        var text: String { declarations.map { "\($0.property):\($0.value)" }.joined(separator: ";") }
    }

    /// Styles every node shares: background, radius, border, padding, visibility.
    static func box(_ props: [String: JSONValue], into css: inout CSS, paddingIsMargin: Bool) {
        css.set("background-color", color(props["background"]))
        css.set("border-radius", length(props["cornerRadius"]))
        css.set("border", border(props["border"]))
        // Logical sides: start and end follow the frame's `dir`, so a right-to-left locale mirrors them.
        if let (block, inline) = logicalEdges(props["padding"]) {
            css.set(paddingIsMargin ? "margin-block" : "padding-block", block)
            css.set(paddingIsMargin ? "margin-inline" : "padding-inline", inline)
        }
        if props["visible"]?.boolValue == false { css.set("display", "none") }
    }

    /// Box styles of a leaf primitive, and its own `alignment` in the parent.
    static func leaf(_ props: [String: JSONValue], in axis: Axis, into css: inout CSS) {
        box(props, into: &css, paddingIsMargin: true)
        css.set("align-self", keyword(props["alignment"], axis == .column ? columnSelf : rowSelf))
    }

    /// Makes a leaf take the parent's full width (column) or free space (row).
    static func fill(_ axis: Axis, into css: inout CSS) {
        if axis == .column { css.set("align-self", "stretch") } else { css.set("flex", "1 1 0") }
    }

    /// A container's `alignment` as align-items (cross axis) or
    /// justify-content (main axis).
    static func alignment(_ v: JSONValue?, axis: Axis) -> (String, String)? {
        guard let name = v?.stringValue else { return nil }
        let cross = axis == .column ? columnSelf : rowSelf
        let main = axis == .column ? ["TOP": "flex-start", "BOTTOM": "flex-end"]
            : ["START": "flex-start", "END": "flex-end"]
        if let value = cross[name] { return ("align-items", value) }
        if let value = main[name] ?? spacing[name] { return ("justify-content", value) }
        return nil
    }

    // Keyword tables: the prop strings a primitive accepts, to CSS keywords.
    static let columnSelf = ["START": "flex-start", "CENTER": "center", "END": "flex-end"]
    static let rowSelf = ["TOP": "flex-start", "CENTER": "center", "BOTTOM": "flex-end"]
    static let spacing = ["SPACE_BETWEEN": "space-between", "SPACE_AROUND": "space-around",
                          "SPACE_EVENLY": "space-evenly"]
    static let textAligns = ["START": "start", "CENTER": "center", "END": "end", "JUSTIFY": "justify"]
    static let fontStyles = ["ITALIC": "italic", "NORMAL": "normal"]
    static let textTransforms = ["UPPERCASE": "uppercase", "LOWERCASE": "lowercase",
                                 "CAPITALIZE": "capitalize", "NONE": "none"]
    static let families = ["serif": "ui-serif,Georgia,serif",
                           "mono": "ui-monospace,Menlo,Consolas,monospace",
                           "monospace": "ui-monospace,Menlo,Consolas,monospace",
                           "rounded": "ui-rounded,system-ui,sans-serif"]

    /// The CSS keyword `table` maps a string prop to (case-insensitive), else nil.
    static func keyword(_ v: JSONValue?, _ table: [String: String]) -> String? {
        v?.stringValue.flatMap { table[$0.uppercased()] ?? table[$0] }
    }

    /// A typography object: font size, line height, weight and family.
    /// A line height up to 4 is a multiple of the size, above it points.
    static func typography(_ v: JSONValue?, into css: inout CSS) {
        guard let style = v?.objectValue else { return }
        css.set("font-size", length(style["size"]))
        if let lineHeight = number(style["lineHeight"]), lineHeight > 0, lineHeight <= 1000 {
            css.set("line-height", lineHeight <= 4 ? format(lineHeight) : format(lineHeight) + "px")
        }
        if let weight = number(style["weight"]), (1...1000).contains(weight) { css.set("font-weight", format(weight)) }
        css.set("font-family", style["family"]?.stringValue.flatMap { families[$0.lowercased()] })
    }

    /// `maxLines` as a line clamp (ellipsis after the last line).
    static func lineClamp(_ v: JSONValue?, into css: inout CSS) {
        guard let lines = v?.intValue, lines > 0, lines <= 1000 else { return }
        css.set("display", "-webkit-box")
        css.set("-webkit-box-orient", "vertical")
        css.set("-webkit-line-clamp", String(lines))
        css.set("overflow", "hidden")
    }

    /// A valid hex colour as CSS (`#RRGGBBAA` becomes `rgba(…)`), else nil.
    static func color(_ v: JSONValue?) -> String? {
        guard let s = v?.stringValue, let c = try? RGBColor(hex: s) else { return nil }
        guard s.utf8.count == 9 else { return s }
        return "rgba(\(c.red),\(c.green),\(c.blue),\(format(Double(c.alpha) / 255)))"
    }


    /// A finite number prop, else nil.
    static func number(_ v: JSONValue?) -> Double? {
        guard let d = v?.doubleValue, d.isFinite else { return nil }
        return d
    }

    /// A non-negative length in CSS px (capped at 100,000), else nil.
    static func length(_ v: JSONValue?) -> String? {
        guard let d = number(v), d >= 0 else { return nil }
        return format(min(d, 100_000)) + "px"
    }

    /// A number for CSS: rounded to 3 decimals and kept within ±10^9 (CSS
    /// has no exponents), then written by the one rule (``JSONValue/text(_:)``).
    static func format(_ d: Double) -> String {
        let r = (min(max(d, -1e9), 1e9) * 1000).rounded() / 1000
        return JSONValue.text(r == 0 ? 0 : r)
    }

    /// `padding` (a number, or top/bottom/start/end/leading/trailing/
    /// horizontal/vertical) as its four sides in px, `top end bottom start`;
    /// nil if none.
    static func sides(_ v: JSONValue?) -> [String]? {
        if let all = length(v) { return [all, all, all, all] }
        guard let o = v?.objectValue else { return nil }
        func pick(_ keys: [String]) -> String? { keys.lazy.compactMap { length(o[$0]) }.first }
        let sides = [pick(["top", "vertical"]), pick(["end", "trailing", "horizontal"]),
                     pick(["bottom", "vertical"]), pick(["start", "leading", "horizontal"])]
        guard sides.contains(where: { $0 != nil }) else { return nil }
        return sides.map { $0 ?? "0" }
    }

    /// ``sides(_:)`` as one CSS value, `top end bottom start` in px (one
    /// length when every side is given by one number); nil if none.
    static func edges(_ v: JSONValue?) -> String? {
        if let all = length(v) { return all }
        return sides(v)?.joined(separator: " ")
    }

    /// ``sides(_:)`` as CSS logical sides: `top bottom` for `*-block` and
    /// `start end` for `*-inline` (leading is start, trailing is end, in
    /// the direction of the page); nil if none.
    static func logicalEdges(_ v: JSONValue?) -> (block: String, inline: String)? {
        if let all = length(v) { return (all, all) }
        guard let s = sides(v) else { return nil }
        return ("\(s[0]) \(s[2])", "\(s[3]) \(s[1])")
    }

    /// `border` as `{width, color}` (or a width alone): a solid CSS border.
    static func border(_ v: JSONValue?) -> String? {
        let width = length(v) ?? length(v?["width"])
        let shade = color(v?["color"])
        guard width != nil || shade != nil else { return nil }
        return "\(width ?? "1px") solid \(shade ?? "rgba(0,0,0,0.12)")"
    }

    /// An `https://` URL percent-encoded so it cannot leave `url("…")`;
    /// anything else is nil.
    static func imageURL(_ v: JSONValue?) -> String? {
        guard let s = v?.stringValue, s.utf8.count > 8, s.lowercased().hasPrefix("https://") else { return nil }
        var out = ""
        for byte in s.utf8 {
            if urlSafe.contains(byte) { out.unicodeScalars.append(Unicode.Scalar(byte)) }
            else { out += String(format: "%%%02X", byte) }
        }
        return out
    }

    /// Bytes kept as they are in an image URL: letters, digits and
    /// `-._~:/?#[]@!$&*+,;=%`; quotes, parentheses, backslashes, spaces,
    /// controls and non-ASCII are percent-encoded.
    static let urlSafe: Set<UInt8> = Set(
        Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&*+,;=%".utf8))
}
