// PlaygroundPages.swift - the playground's two HTML pages: the index of a
// folder's screens and flows, and the page of one, with its device frame and
// panels.  Every value from the folder is escaped; the page's behaviour is
// in /assets/playground.js (no inline script, which the policy forbids).
#if Server
import Foundation
import SDUI

/// The HTML of the playground's pages.
enum PlaygroundPages {
    /// `text` escaped for HTML.
    static func e(_ text: String) -> String { HTMLPreview.escaped(text) }

    /// The head every page shares.
    static func head(_ title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(e(title))</title>
        <link rel="stylesheet" href="/assets/playground.css">
        <style>\(HTMLPreview.elementStylesheet)</style>
        </head>
        """
    }

    /// The index: every screen and flow, each a link to its page, and the
    /// files that do not parse.
    static func index(folder: PlaygroundFolder) -> String {
        let screens = folder.screenIDs.map { s in
            "<li><a class=\"sdui-dev-open\" data-screen=\"\(e(s.id))\" href=\"/view/screen/\(e(percent(s.id)))\">\(e(s.id))</a>"
                + " <span class=\"sdui-dev-folder\">\(e(s.folder))/</span></li>"
        }.joined(separator: "\n")
        let flows = folder.flowIDs.map { id in
            "<li><a class=\"sdui-dev-open\" data-flow=\"\(e(id))\" href=\"/view/flow/\(e(percent(id)))\">\(e(id))</a></li>"
        }.joined(separator: "\n")
        let problems = folder.problemList.map { p in
            "<li>\(e(p.file))" + (p.place.isEmpty ? "" : " (\(e(p.place)))") + ": \(e(p.rule)): \(e(p.message))</li>"
        }.joined(separator: "\n")
        return head("SDUI playground · \(folder.root.url.lastPathComponent)") + """
            <body class="sdui-dev-index">
            <h1>SDUI playground</h1>
            <p class="sdui-dev-path">\(e(folder.root.realPath))</p>
            \(problems.isEmpty ? "" : "<section id=\"sdui-dev-banner\" class=\"sdui-dev-banner\"><h2>Files with problems</h2><ul>\(problems)</ul></section>")
            <section><h2>Screens</h2><ul id="sdui-dev-screens">\(screens)</ul></section>
            <section><h2>Flows</h2><ul id="sdui-dev-flows">\(flows)</ul></section>
            </body>
            </html>

            """
    }

    /// The page of one screen or flow: the device frame and the panels.
    static func view(_ target: PlaygroundView.Target, folder: PlaygroundFolder) -> String {
        let (kind, id): (String, String) = switch target {
        case .screen(let id): ("screen", id)
        case .flow(let id): ("flow", id)
        }
        let themes = folder.themeList.map { "<option value=\"\(e($0.id))\">\(e($0.id))</option>" }.joined()
        let locales = folder.locales.map { "<option value=\"\(e($0))\">\(e($0))</option>" }.joined()
        let presets = PrimitivePresets.all.map { "<option value=\"\(e($0.header))\">\(e($0.name))</option>" }.joined()
        return head("\(id) · SDUI playground") + """
            <body class="sdui-dev" data-kind="\(kind)" data-id="\(e(id))">
            <header class="sdui-dev-bar">
              <a href="/">All screens</a>
              <strong>\(kind) \(e(id))</strong>
              <span id="sdui-dev-status">connecting…</span>
              <span class="sdui-dev-widths">
                <button type="button" data-device-width="320">320</button>
                <button type="button" data-device-width="390" aria-pressed="true">390</button>
                <button type="button" data-device-width="430">430</button>
              </span>
              <button type="button" id="sdui-dev-back">Back</button>
              \(kind == "flow" ? "<button type=\"button\" id=\"sdui-dev-next\">Next</button>" : "")
              <button type="button" id="sdui-dev-restart">Restart</button>
            </header>
            <section id="sdui-dev-banner" class="sdui-dev-banner" role="alert" hidden><h2>Not applied: fix these files</h2><ul></ul></section>
            <main class="sdui-dev-main">
              <div class="sdui-dev-stage">
                <div id="sdui-dev-device" class="sdui-dev-device" style="width:390px">
                  <div id="sdui-dev-screen"></div>
                </div>
              </div>
              <aside class="sdui-dev-panels">
                <details open><summary>Look</summary>
                  <label>Theme <select id="sdui-dev-theme"><option value="">the screen's own</option>\(themes)</select></label>
                  <label>Locale <select id="sdui-dev-locale"><option value="">the catalogs' default</option>\(locales)</select></label>
                  <label>Mode <select id="sdui-dev-mode"><option value="light">light</option><option value="dark">dark</option></select></label>
                  <label>Text scale <output id="sdui-dev-text-scale-value">1.0</output>
                    <input id="sdui-dev-text-scale" type="range" min="1" max="3.1" step="0.1" value="1"></label>
                  <label>App's primitives <select id="sdui-dev-primitives-preset"><option value="">current (built-in)</option>\(presets)</select></label>
                  <span class="sdui-dev-row"><input id="sdui-dev-primitives" type="text" placeholder="X-Primitives, e.g. Column@1,Text@3" spellcheck="false">
                    <button type="button" id="sdui-dev-primitives-apply">Apply</button></span>
                </details>
                <details open><summary>Store</summary>
                  <pre id="sdui-dev-store">{}</pre>
                  <span class="sdui-dev-row"><input id="sdui-dev-store-key" type="text" placeholder="key.path" spellcheck="false">
                    <input id="sdui-dev-store-value" type="text" placeholder="JSON value" spellcheck="false">
                    <button type="button" id="sdui-dev-store-set">Set</button></span>
                </details>
                <details open><summary>Events</summary><ol id="sdui-dev-events"></ol></details>
                <details open><summary>Issues</summary><ul id="sdui-dev-issues"></ul></details>
                <details open><summary>Render tree</summary>
                  <label><input id="sdui-dev-inspect" type="checkbox"> Select nodes instead of tapping</label>
                  <pre id="sdui-dev-node">Select a node to see it here.</pre>
                </details>
              </aside>
            </main>
            <script src="/assets/playground.js"></script>
            </body>
            </html>

            """
    }

    /// `id` percent-encoded for a URL path segment.
    static func percent(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? id
    }
}

/// Primitive maps an older app would send, offered by the page's picker.
enum PrimitivePresets {
    /// A named `X-Primitives` value.
    struct Preset {
        var name: String
        var header: String
    }

    /// The presets: the first release's five core primitives at version 1,
    /// and the core five at their current versions without the form primitives.
    static let all: [Preset] = [
        Preset(name: "first release (core five @1)", header: "Column@1,Row@1,Text@1,AsyncImage@1,Spacer@1"),
        Preset(name: "core five, no form primitives", header: "Column@3,Row@2,Text@4,AsyncImage@2,Spacer@1"),
    ]
}
#endif
