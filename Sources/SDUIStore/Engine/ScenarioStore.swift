// ScenarioStore.swift - the store of one scope: its values, the mutation
// pipeline (validate, write, recompute live expressions, persist, publish)
// and its observers.
//
// Every mutation runs under one recursive lock: it builds the proposed
// state, validates it (strict refuses, lenient amends), swaps it in,
// recomputes the live expressions whose dependencies it touched (each in
// topological order, at most once, their writes validated and added as
// patches), then, unless a transaction is open, persists the state and
// hands the change to the observers it reaches (a PathTrie walk per
// patch).  The lock is recursive so that a transaction's block, a live
// expression's compute and an observer's callback may read and write the
// same store on the same thread; other threads wait, so a transaction is
// atomic to them and nothing is seen mid-transaction.
//
// A file scope's save merges the change into what other processes saved
// in the file meanwhile (FilePersistence); the store then takes the saved
// state as its own and hands the differences to its observers as one more
// change, after the store's own.
import Foundation
import Logging
import SDUICore
#if canImport(Combine)
import Combine
#endif

/// The ``KeyValueStore`` of one scope.  Get one from ``DefaultStore/named(_:)``.
///
/// Thread safety: all state is guarded by one recursive lock (see the
/// file's essay), hence `@unchecked Sendable`.
public final class ScenarioStore: KeyValueStore, @unchecked Sendable {
    /// The scope this store serves.
    public let scope: Scope
    /// The scenario this store belongs to, if any.
    public var scenarioID: String? { scope.scenarioID }

    private let lock = NSRecursiveLock()
    private var state: StoreValue = .object([:])
    private var validator: Validator?
    private var live = LiveExpressionGraph()
    private var observers = ObserverRegistry()
    private var transactionDepth = 0
    private var transactionID: UUID?
    private var pending: [StorePatch] = []
    private var pendingPaths: [KeyPath] = []
    /// Each top-level value in the core's tree, for expressions; dropped
    /// when a patch touches that key.
    private var documents: [String: JSONDocument] = [:]
    private let persistence: StorePersistence?
    private let logger: Logger
    /// The most recent patches, newest last (the inspector's log).
    private var patchLog: [StorePatch] = []
    /// Where the oldest patch of a full ``patchLog`` is (it is a ring once
    /// it holds ``patchLogCapacity`` patches, so logging never shifts it).
    private var patchLogStart = 0
    /// How many patches ``recentPatches`` keeps.
    public static let patchLogCapacity = 256
    /// The last error persisting a change; nil after a successful save.
    private var persistenceError: SDUIError?
    /// Why the saved state could not be loaded (nil when it loaded, or
    /// there was none): `.io` when the file cannot be read at all (nothing
    /// is saved over it), `.corrupt` and the like when it does not read as
    /// a saved state (it is kept aside by the first save).
    package private(set) var loadError: SDUIError?

    /// A store of `scope`, loading what `persistence` saved.  A recovered
    /// or unreadable saved state is logged (and reported by
    /// ``lastPersistenceError`` and `loadError`); the store then starts
    /// from what could be read.  A file that cannot be read at all is not
    /// saved over: saves fail until it can be read, and then the changes
    /// are merged into what it holds.
    init(scope: Scope, persistence: StorePersistence?, logger: Logger) {
        self.scope = scope
        self.persistence = persistence
        self.logger = logger
        guard let persistence else { return }
        do {
            let (saved, warning) = try persistence.load()
            if let saved { state = .object(saved) }
            if let warning {
                logger.warning("store \(scope): \(warning)")
                persistenceError = SDUIError(.io, warning, input: "\(scope)")
            }
        } catch {
            logger.error("store \(scope): could not load its saved state: \(error)")
            persistenceError = error as? SDUIError ?? SDUIError(.io, "\(error)", input: "\(scope)")
            loadError = persistenceError
        }
        persistence.attach(self)
    }

    /// Ends every `values(for:)` and `changes(for:)` sequence: a consumer
    /// of a store that is gone (a scenario ended, the store released) is
    /// not left waiting.
    deinit { endObservation() }

    /// Ends every observation of this store (its sequences finish) and
    /// forgets the observers.  Called when the store's scenario ends.
    package func endObservation() {
        let finishes = locked { observers.removeAll() }
        for f in finishes { f() }
    }

    /// Runs `body` under the store's lock.
    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: Reading

    /// The value at `keyPath`; nil when there is none or the path is malformed.
    public func get(_ keyPath: String) -> StoreValue? {
        guard let path = try? KeyPath(keyPath) else { return nil }
        return locked { path.get(in: state) }
    }

    /// The value at `keyPath` decoded as `T`, straight from the value.
    public func get<T: Decodable>(_ keyPath: String, as type: T.Type) throws -> T {
        let path = try KeyPath(keyPath)
        guard let value = locked({ path.get(in: state) }) else {
            throw SDUIError(.notFound, "no value at \(path)", input: "store \(scope)")
        }
        do {
            return try JSONValueDecoder().decode(T.self, from: value.jsonValue)
        } catch {
            throw SDUIError(.schema, "the value at \(path) is not a \(T.self): \(error)", input: "store \(scope)")
        }
    }

    /// Whether a value (null included) is at `keyPath`.
    public func exists(_ keyPath: String) -> Bool { get(keyPath) != nil }

    /// Every top-level key and its value.
    public func snapshot() -> [String: StoreValue] {
        locked { state.pathObject ?? [:] }
    }

    // MARK: Mutating

    /// Writes `value` at `keyPath`.
    @discardableResult
    public func set(_ keyPath: String, _ value: StoreValue) -> ValidationResult {
        mutate(.set, keyPath) { path, s in try path.set(value, in: &s) }
    }

    /// Merges `object`'s members into the object at `keyPath`.
    @discardableResult
    public func merge(_ keyPath: String, _ object: [String: StoreValue]) -> ValidationResult {
        mutate(.merge, keyPath) { path, s in
            var target = path.get(in: s) ?? .object([:])
            guard case .object(var members) = target else {
                throw SDUIError(.schema, "\(path) is \(target.pathKindText), not an object; merge needs an object",
                                input: "store \(scope)")
            }
            target = .null
            for (k, v) in object { members[k] = v }
            try path.set(.object(members), in: &s)
        }
    }

    /// Removes the value at `keyPath`.
    @discardableResult
    public func remove(_ keyPath: String) -> ValidationResult {
        mutate(.remove, keyPath) { path, s in path.remove(from: &s) }
    }

    /// Replaces everything with `root`, as one change.
    public func replaceAll(with root: [String: StoreValue]) {
        locked {
            let old = state.pathObject ?? [:]
            state = .object(root)
            documents.removeAll()
            var patches: [StorePatch] = []
            var touched: [KeyPath] = []
            for key in Set(old.keys).union(root.keys).sorted() where old[key] != root[key] {
                guard let path = try? KeyPath(components: [.key(key)]) else { continue }
                patches.append(StorePatch(op: root[key] == nil ? .remove : .set, keyPath: path.description,
                                          oldValue: old[key], newValue: root[key]))
                touched.append(path)
            }
            recompute(after: touched, patches: &patches)
            record(patches, touched: touched)
        }
    }

    /// Runs `block` as one transaction.
    public func transaction(_ block: (KeyValueStore) -> Void) {
        locked {
            transactionDepth += 1
            if transactionDepth == 1 { transactionID = UUID() }
            block(self)
            transactionDepth -= 1
            if transactionDepth == 0 { flush() }
        }
    }

    /// The pipeline of the file's essay for one mutation.
    private func mutate(_ op: StorePatch.Op, _ keyPath: String,
                        _ apply: (KeyPath, inout StoreValue) throws -> Void) -> ValidationResult {
        let path: KeyPath
        do { path = try KeyPath(keyPath) } catch { return .failed(reason: "\(error)") }
        return locked {
            var proposed = state
            let old = path.get(in: proposed)
            do { try apply(path, &proposed) } catch { return .failed(reason: "\(error)") }
            if let validator {
                var warnings: [String] = []
                let verdict = validator.check(&proposed, written: path, warnings: &warnings)
                guard verdict == .ok else {
                    logger.debug("store \(scope): refused \(op) of \(path): \(verdict)")
                    return verdict
                }
                for w in warnings { logger.warning("store \(scope): \(w)") }
            }
            let new = path.get(in: proposed)
            state = proposed
            dropDocuments(touching: path)
            var patches = [StorePatch(op: op, keyPath: path.description, oldValue: old, newValue: op == .remove ? nil : new)]
            let touched = [Self.notificationPath(op, path)]
            recompute(after: touched, patches: &patches)
            record(patches, touched: touched)
            return .ok
        }
    }

    /// The path a patch reaches observers by: removing an array element
    /// shifts the later ones, so it touches the whole array.
    private static func notificationPath(_ op: StorePatch.Op, _ path: KeyPath) -> KeyPath {
        if op == .remove, path.components.count > 1, case .index = path.components.last!,
           let parent = try? KeyPath(components: Array(path.components.dropLast())) {
            return parent
        }
        return path
    }

    /// Forgets the core-tree copies of the top-level values `path` touches.
    private func dropDocuments(touching path: KeyPath) {
        if case .key(let name) = path.components[0] { documents[name] = nil } else { documents.removeAll() }
    }

    /// Adds a mutation's patches to the open transaction, or commits them.
    private func record(_ patches: [StorePatch], touched: [KeyPath]) {
        guard !patches.isEmpty else { return }
        pending += patches
        pendingPaths += touched
        for p in patches.dropFirst() { if let k = try? KeyPath(p.keyPath) { pendingPaths.append(k) } }
        if transactionDepth == 0 { flush() }
    }

    /// Commits the pending patches: log, persist, publish.  When the
    /// persistence saved more than this store holds (a file another process
    /// also writes), the store takes what was saved, and its observers get
    /// those differences as one more change, after this one.
    private func flush() {
        defer {
            pending = []
            pendingPaths = []
            transactionID = nil
        }
        guard !pending.isEmpty else { return }
        let change = StoreChange(scenarioID: scenarioID ?? "", patches: pending, transactionID: transactionID)
        log(pending)
        var outside: [StorePatch] = []
        if let persistence {
            do {
                if let saved = try persistence.commit(state.pathObject ?? [:], change: change) {
                    outside = adopt(saved)
                }
                persistenceError = nil
                loadError = nil
            } catch {
                let e = error as? SDUIError ?? SDUIError(.io, "\(error)", input: "\(scope)")
                logger.error("store \(scope): could not save a change: \(e)")
                persistenceError = e
            }
        }
        let reached = observers.reached(by: pendingPaths)
        for id in reached { observers.entries[id]?.deliver(change) }
        guard !outside.isEmpty else { return }
        let merged = StoreChange(scenarioID: scenarioID ?? "", patches: outside, transactionID: nil)
        for id in observers.reached(by: outside.compactMap { try? KeyPath($0.keyPath) }) {
            observers.entries[id]?.deliver(merged)
        }
    }

    /// Adds patches to the inspector's log.
    private func log(_ patches: [StorePatch]) {
        for p in patches {
            if patchLog.count < Self.patchLogCapacity {
                patchLog.append(p)
            } else {
                patchLog[patchLogStart] = p
                patchLogStart = (patchLogStart + 1) % Self.patchLogCapacity
            }
        }
    }

    /// Takes `saved` as the state (what the persistence saved: this store's
    /// change merged into other writers' changes).  Values other writers
    /// saved are taken as they are: not validated, and live expressions
    /// do not run for them (the writer that saved them ran its own).
    /// Returns one patch per top-level key that changed (logged too).
    private func adopt(_ saved: [String: StoreValue]) -> [StorePatch] {
        let old = state.pathObject ?? [:]
        var patches: [StorePatch] = []
        for key in Set(old.keys).union(saved.keys).sorted() where old[key] != saved[key] {
            guard let path = try? KeyPath(components: [.key(key)]) else { continue }
            patches.append(StorePatch(op: saved[key] == nil ? .remove : .set, keyPath: path.description,
                                      oldValue: old[key], newValue: saved[key]))
            documents[key] = nil
        }
        state = .object(saved)
        log(patches)
        return patches
    }

    // MARK: Live expressions

    /// Recomputes, in order, the live expressions that `touched` (and the
    /// outputs of earlier ones) reach; their writes join `patches`.
    private func recompute(after touched: [KeyPath], patches: inout [StorePatch]) {
        guard !live.order.isEmpty else { return }
        var touched = touched
        for id in live.order {
            guard let node = live.nodes[id], node.deps.contains(where: { d in touched.contains { $0.intersects(d) } }) else { continue }
            if let patch = evaluate(node) {
                patches.append(patch)
                touched.append(node.output)
            }
        }
    }

    /// Computes one live expression and writes its result by its policy;
    /// the patch written, if any.
    private func evaluate(_ node: LiveExpressionGraph.Node) -> StorePatch? {
        let result: StoreValue?
        if let expr = node.expr.expression {
            do {
                result = StoreValue(try expr.evaluate(slots: slots(for: expr)))
            } catch {
                logger.warning("store \(scope): live expression '\(node.expr.id)' failed, \(node.output) unchanged: \(error)")
                return nil
            }
        } else {
            result = node.expr.compute { [state] text in (try? KeyPath(text)).flatMap { $0.get(in: state) } }
        }
        let old = node.output.get(in: state)
        if node.expr.policy == .writeIfChanged && old == result { return nil }
        var proposed = state
        if let result {
            do { try node.output.set(result, in: &proposed) } catch {
                logger.warning("store \(scope): live expression '\(node.expr.id)' cannot write \(node.output): \(error)")
                return nil
            }
        } else {
            node.output.remove(from: &proposed)
        }
        if let validator {
            var warnings: [String] = []
            let verdict = validator.check(&proposed, written: node.output, warnings: &warnings)
            guard verdict == .ok else {
                logger.warning("store \(scope): live expression '\(node.expr.id)' result refused: \(verdict)")
                return nil
            }
            for w in warnings { logger.warning("store \(scope): \(w)") }
        }
        state = proposed
        dropDocuments(touching: node.output)
        return StorePatch(op: result == nil ? .remove : .set, keyPath: node.output.description,
                          oldValue: old, newValue: node.output.get(in: state))
    }

    /// The top-level values an expression reads, by slot, in the core's
    /// tree (built once per value and kept until a patch touches it).
    private func slots(for expr: CompiledExpression) throws -> [JSONDocument?] {
        try expr.rootNames.map { try document(root: $0) }
    }

    /// Adds (or replaces) a live expression and computes it once.
    ///
    /// - Throws: ``SDUIError`` `.argument` naming the cycle it would close,
    ///   or a malformed path.
    public func addLiveExpression(_ expr: LiveExpression) throws {
        try locked {
            try live.add(expr)
            guard let node = live.nodes[expr.id] else { return }
            var patches: [StorePatch] = []
            if let patch = evaluate(node) {
                patches.append(patch)
                recompute(after: [node.output], patches: &patches)
            }
            record(patches, touched: [])
        }
    }

    /// Adds a live expression; a refusal (a cycle) is logged as an error.
    /// ``addLiveExpression(_:)`` throws it instead.
    public func registerLiveExpression(_ expr: LiveExpression) {
        do { try addLiveExpression(expr) } catch {
            logger.error("store \(scope): \(error)")
        }
    }

    /// Removes the live expression `id`.
    public func unregisterLiveExpression(id: String) {
        locked { live.remove(id) }
    }

    // MARK: Validation

    /// Sets the rules; required keys that are missing get their defaults.
    /// A malformed rule path or pattern is logged and the options are not
    /// applied; ``setValidation(_:)`` throws instead.
    public func configureValidation(_ options: ValidationOptions) {
        do { try setValidation(options) } catch {
            logger.error("store \(scope): validation not configured: \(error)")
        }
    }

    /// Sets the rules.  What the store already holds (loaded from its
    /// scope's saved state, or written before) cannot be refused any more,
    /// so it is brought into line in either mode: missing required keys get
    /// their defaults, invalid values are coerced, else replaced by the
    /// default, else removed, each with a logged warning; the repairs are
    /// one change, saved like any other.
    ///
    /// - Throws: ``SDUIError`` naming a malformed rule path or pattern.
    public func setValidation(_ options: ValidationOptions) throws {
        let v = try Validator(options)
        locked {
            validator = v
            var proposed = state
            var warnings: [String] = []
            let changed = v.repair(&proposed, warnings: &warnings)
            for w in warnings { logger.warning("store \(scope): \(w)") }
            guard !changed.isEmpty else { return }
            var patches: [StorePatch] = []
            for path in changed {
                let new = path.get(in: proposed)
                patches.append(StorePatch(op: new == nil ? .remove : .set, keyPath: path.description,
                                          oldValue: path.get(in: state), newValue: new))
                dropDocuments(touching: path)
            }
            state = proposed
            recompute(after: changed, patches: &patches)
            record(patches, touched: changed)
        }
    }

    /// What writing `value` at `keyPath` would meet, without writing.
    public func validateWrite(_ keyPath: String, _ value: StoreValue) -> ValidationResult {
        let path: KeyPath
        do { path = try KeyPath(keyPath) } catch { return .failed(reason: "\(error)") }
        return locked {
            var proposed = state
            do { try path.set(value, in: &proposed) } catch { return .failed(reason: "\(error)") }
            guard let validator else { return .ok }
            var warnings: [String] = []
            return validator.check(&proposed, written: path, warnings: &warnings)
        }
    }

    /// Whether what `keyPath` holds now meets the rules that touch it,
    /// without writing: a required key that is missing fails, as does a
    /// value a rule refuses (in lenient mode only what cannot be coerced or
    /// defaulted).  A store without rules passes everything.  What a
    /// `validate` action and an input's message ask.
    public func validate(_ keyPath: String) -> ValidationResult {
        let path: KeyPath
        do { path = try KeyPath(keyPath) } catch { return .failed(reason: "\(error)") }
        return locked {
            guard let validator else { return .ok }
            var proposed = state
            var warnings: [String] = []
            return validator.check(&proposed, written: path, warnings: &warnings)
        }
    }

    // MARK: Observation

    /// The value at `keyPath` now and after each change that alters it.
    public func values(for keyPath: String) -> StoreValues {
        let (stream, continuation) = AsyncStream<StoreValue?>.makeStream()
        guard let path = try? KeyPath(keyPath) else {
            continuation.yield(nil)
            continuation.finish()
            return StoreValues(stream: stream)
        }
        locked {
            var last = path.get(in: state)
            continuation.yield(last)
            let id = observers.add(paths: [path], label: "values(\(path))", finish: { continuation.finish() }) { [unowned self] _ in
                let now = path.get(in: self.state)
                if now != last {
                    last = now
                    continuation.yield(now)
                }
            }
            continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        }
        return StoreValues(stream: stream)
    }

    /// Every change with a patch that touches one of `keyPaths`.
    public func changes(for keyPaths: Set<String>) -> StoreChanges {
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream()
        let paths = keyPaths.sorted().compactMap { try? KeyPath($0) }
        locked {
            let id = observers.add(paths: paths, label: "changes(\(paths.map(\.description).joined(separator: ", ")))",
                                   finish: { continuation.finish() }) {
                continuation.yield($0)
            }
            continuation.onTermination = { [weak self] _ in self?.removeObserver(id) }
        }
        return StoreChanges(stream: stream)
    }

    /// Registers a callback for changes touching `paths` (render
    /// integration, Combine); returns the id ``removeObserver(_:)`` takes.
    /// The callback runs under the store's lock, on the mutating thread.
    package func addObserver(paths: [KeyPath], label: String, _ deliver: @escaping (StoreChange) -> Void) -> Int {
        locked { observers.add(paths: paths, label: label, deliver: deliver) }
    }

    /// Removes an observer.
    package func removeObserver(_ id: Int) {
        locked { observers.remove(id) }
    }

    #if canImport(Combine)
    /// The value at `keyPath` now and after each change that alters it.
    public func publisher(for keyPath: String) -> AnyPublisher<StoreValue?, Never> {
        guard let path = try? KeyPath(keyPath) else { return Just(nil).eraseToAnyPublisher() }
        return StorePublisher(store: self, paths: [path]) { store in path.get(in: store.state) }
            .removeDuplicates()
            .eraseToAnyPublisher()
    }

    /// An object of `keyPaths` and their values, now and after each change touching them.
    public func publisher(for keyPaths: Set<String>) -> AnyPublisher<StoreValue, Never> {
        let paths = keyPaths.sorted().compactMap { try? KeyPath($0) }
        return StorePublisher(store: self, paths: paths) { store in
            var members: [String: StoreValue] = [:]
            for p in paths { members[p.description] = p.get(in: store.state) }
            return StoreValue.object(members)
        }
        .removeDuplicates()
        .eraseToAnyPublisher()
    }

    /// The current value `read` gives, then one after each change reaching `paths`.
    private struct StorePublisher<Output>: Publisher {
        typealias Failure = Never
        let store: ScenarioStore
        let paths: [KeyPath]
        let read: (ScenarioStore) -> Output

        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let subject = CurrentValueSubject<Output, Never>(store.locked { read(store) })
            // Weak: the observer lives in the store's registry, so a strong
            // reference would keep the store alive until the subscriber cancels.
            let id = store.addObserver(paths: paths, label: "publisher") { [weak store] _ in
                if let store { subject.send(read(store)) }
            }
            subject.handleEvents(receiveCancel: { [weak store] in store?.removeObserver(id) })
                .receive(subscriber: subscriber)
        }
    }
    #endif

    // MARK: Backend

    /// Writes values that came from the server as one change (validation
    /// skipped: the server's value stands; live expressions run).  `marking`
    /// is told true before the commit and false after, under the lock, so
    /// the backend does not queue them again.
    func applyRemote(_ updates: [(String, StoreValue?)], marking: (Bool) -> Void) {
        locked {
            var patches: [StorePatch] = []
            var touched: [KeyPath] = []
            for (text, value) in updates {
                guard let path = try? KeyPath(text) else { continue }
                let old = path.get(in: state)
                guard old != value else { continue }
                var proposed = state
                if let value {
                    guard (try? path.set(value, in: &proposed)) != nil else { continue }
                } else {
                    path.remove(from: &proposed)
                }
                state = proposed
                dropDocuments(touching: path)
                patches.append(StorePatch(op: value == nil ? .remove : .set, keyPath: path.description,
                                          oldValue: old, newValue: value))
                touched.append(path)
            }
            recompute(after: touched, patches: &patches)
            marking(true)
            record(patches, touched: touched)
            marking(false)
        }
    }

    /// For a `.backend` scope: pushes the queued changes, then pulls the
    /// server's values (last writer wins).
    ///
    /// - Throws: ``SDUIError`` `.argument` for another scope or a store
    ///   without an adapter; the adapter's error when the server cannot be
    ///   reached (the queue is kept).
    public func syncBackend() async throws -> BackendSyncReport {
        guard let sync = persistence as? BackendSync else {
            throw SDUIError(.argument, "\(scope) is not a backend scope", input: "\(scope)")
        }
        return try await sync.sync()
    }

    /// For a `.backend` scope: how many changes wait to be pushed (0 for
    /// other scopes).
    public var queuedBackendPatches: Int { (persistence as? BackendSync)?.queuedCount ?? 0 }

    // MARK: Lifecycle and inspection

    /// Removes every value and what the scope saved (one change).
    public func clear() {
        locked {
            replaceAll(with: [:])
            do { try persistence?.clear() } catch { logger.error("store \(scope): could not clear its saved state: \(error)") }
        }
    }

    /// The last error saving or loading the state; nil when the last save
    /// succeeded.
    public var lastPersistenceError: SDUIError? { locked { persistenceError } }

    /// The most recent patches, oldest first (at most ``patchLogCapacity``);
    /// public through ``StoreInspector`` in debug builds.
    package var recentPatches: [StorePatch] {
        locked { Array(patchLog[patchLogStart...] + patchLog[..<patchLogStart]) }
    }

    /// What each active observer watches (``StoreInspector``'s list).
    package var activeSubscriptions: [String] {
        locked { observers.entries.sorted { $0.key < $1.key }.map(\.value.label) }
    }

    /// The ids of the live expressions, in the order they run.
    package var liveExpressionIDs: [String] { locked { live.order } }
}

// MARK: Scenario data for renders

extension ScenarioStore: ScenarioData {
    /// The value at `path` as JSON (colours and URLs as strings); nil when
    /// none.  Read under the store's lock, so it is one committed state.
    public func value(at path: KeyPath) -> JSONValue? {
        locked { path.get(in: state)?.jsonValue }
    }

    /// The top-level member `name` in the core's tree, built on first use
    /// and kept until a patch touches that member (the same cache live
    /// expressions use).
    public func document(root name: String) throws -> JSONDocument? {
        try locked {
            if let doc = documents[name] { return doc }
            guard let value = state.pathObject?[name] else { return nil }
            let doc = try JSONDocument(value.jsonValue)
            documents[name] = doc
            return doc
        }
    }
}
