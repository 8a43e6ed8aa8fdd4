// FlowSession+Rendering.swift - drawing the current screen of a flow, and
// the presenter that runs it through the screen state machine.

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

extension FlowSession {
    // MARK: Rendering

    /// The current screen's render tree: theme by screen, then flow, then
    /// the resolver's fallback; the flow's store bound; when the last `next`
    /// stayed, its reason drawn under the blocks.  The `render_error` events
    /// of the tree are committed once per screen view.
    ///
    /// - Throws: `SDUIError` `.argument` when no screen is shown.
    public func render(with resolver: ScreenResolver) throws -> RenderTree {
        let (screen, reason, view) = try locked { () throws -> (FlowScreen, String?, Int) in
            guard let p = current, let id = p.screen, let s = self.screen(id) else {
                throw SDUIError(.argument, "the flow shows no screen", input: definition.id)
            }
            return (s, blockedReason, self.viewSeq)
        }
        var context = resolver.context
        context.flowThemeID = definition.themeId
        context.store = store
        var blocks = screen.blockScreen
        if let reason {
            blocks.blocks.append(.object(["type": "footer", "text": .string("⚠ \(reason)")]))
        }
        let tree = ScreenResolver(context).resolve(blocks)
        let errors = tree.events.filter { $0.name == EventKind.renderError.name || $0.name == EventKind.missingString.name }
        if !errors.isEmpty {
            try locked {
                guard reportedRenderFor != view, viewSeq == view, var p = current,
                      p.screen == screen.id else { return }
                p.data = storeData()
                let locale = context.textLocale
                let events = errors.map { e -> (String, String, [String: JSONValue]) in
                    e.name == EventKind.missingString.name
                        ? (e.name, screen.id, ["block": .string(e.token ?? ""), "key": .string(e.detail),
                                               "locale": locale.map(JSONValue.string) ?? .null])
                        : (e.name, screen.id, ["block": .string(e.token ?? ""), "detail": .string(e.detail)])
                }
                try commit(p, events, from: p.data)
                reportedRenderFor = view
            }
        }
        return tree
    }

    /// A presenter that runs this flow's current screen through the screen
    /// state machine: FETCH takes the screen from the definition, LOAD
    /// renders it.
    public func presenter(resolver: ScreenResolver) -> ScreenPresenter<FlowScreen, RenderTree> {
        ScreenPresenter(fetch: { [self] in
            guard let s = currentScreen else {
                throw SDUIError(.notFound, "the flow shows no screen", input: definition.id)
            }
            return s
        }, load: { [self] _ in try render(with: resolver) })
    }
}
