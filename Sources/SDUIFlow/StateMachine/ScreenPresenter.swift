// ScreenPresenter.swift - runs a screen through its state machine: fetch,
// load, present, and retry from ERROR.
import SDUI
import SDUICore

/// Runs one screen through ``ScreenStateMachine``: `fetch` in FETCH, `load`
/// in LOAD, the result in PRESENT; a failure of `fetch` is `bad data`, of
/// `load` is `failure`, and both end in ERROR, from which ``present()``
/// retries.  From PRESENT, ``present()`` is `react`: fetch and load again.
///
/// ```swift
/// let presenter = ScreenPresenter.screen("checkout", loader: loader)
/// let screen = try await presenter.present()       // START → FETCH → LOAD → PRESENT
/// for await state in presenter.machine.states { … }
/// ```
///
/// Flows run through it too (``FlowSession/presenter(resolver:)``): their
/// fetch reads the screen from the definition, their load renders it.
///
/// Thread-safe: the machine refuses a transition its state does not allow,
/// so two overlapping calls cannot both move it; the loser throws.
public final class ScreenPresenter<Fetched: Sendable, Content: Sendable>: Sendable {
    /// The screen's state.
    public let machine = ScreenStateMachine()
    private let fetch: @Sendable () async throws -> Fetched
    private let load: @Sendable (Fetched) async throws -> Content

    /// A presenter whose FETCH runs `fetch` and whose LOAD runs `load`.
    public init(fetch: @escaping @Sendable () async throws -> Fetched,
                load: @escaping @Sendable (Fetched) async throws -> Content) {
        self.fetch = fetch
        self.load = load
    }

    /// Takes the screen to PRESENT and returns what it shows: from START by
    /// `initiate`, from ERROR by `retry`, from PRESENT by `react`.
    ///
    /// - Throws: the error of `fetch` or `load` (the machine is then in
    ///   ERROR); `SDUIError` `.argument` when the machine is in FETCH or
    ///   LOAD (another call is under way).
    public func present() async throws -> Content {
        switch machine.state {
        case .start: try machine.apply(.initiate)
        case .error: try machine.apply(.retry)
        case .present: try machine.apply(.react)
        case .fetch, .load:
            throw SDUIError(.argument, "the screen is in \(machine.state): a fetch or load is under way",
                            input: "screen state machine")
        }
        let fetched: Fetched
        do {
            fetched = try await fetch()
        } catch {
            try machine.apply(.badData)
            throw error
        }
        try machine.apply(.loadData)
        let content: Content
        do {
            content = try await load(fetched)
        } catch {
            try machine.apply(.failure)
            throw error
        }
        try machine.apply(.success)
        return content
    }
}

extension ScreenPresenter where Fetched == ScreenLoader.FetchedPayload, Content == LoadedScreen {
    /// A registry screen: FETCH is ``ScreenLoader/fetch(_:)`` (registry,
    /// ETag, 409 fallback, offline copy), LOAD is ``ScreenLoader/resolve(_:)``
    /// (tokens and render tree).  A load fails when the screen has items
    /// and none of them could be drawn.
    public static func screen(_ id: String, loader: ScreenLoader) -> ScreenPresenter {
        ScreenPresenter(fetch: { try await loader.fetch(id) }, load: { fetched in
            let loaded = await loader.resolve(fetched)
            let drawn = loaded.tree.root.children.contains { $0.kind == .primitive }
            if !fetched.payload.tokens.isEmpty, !drawn {
                throw SDUIError(.notFound, "none of the screen's \(fetched.payload.tokens.count) tokens could be drawn: "
                                + loaded.tree.issues.prefix(3).map(\.description).joined(separator: "; "),
                                input: id)
            }
            return loaded
        })
    }
}
