// DefaultStore.swift - an app's stores: one ScenarioStore per scope, made on
// first use with the persistence its scope needs.
import Foundation
import Logging
import SDUICore

/// An app's scenario data, one ``ScenarioStore`` per ``Scope``.
///
/// ```swift
/// let store = DefaultStore(appID: "com.acme.app")
/// let s = store.named(.scenarioSession(id: "checkout"))
/// s.set("cart.total", .number(12.5))
/// ```
///
/// `version` stamps what the persisted scopes save; data saved by another
/// major version is dropped when read (logged, no migrations).  Thread
/// safety: the table of stores is guarded by a lock, hence `@unchecked
/// Sendable`; each store serializes itself.
public final class DefaultStore: Store, @unchecked Sendable {
    /// The app the data belongs to.
    public let appID: String
    /// The version of the app's data model.
    public let version: SemanticVersion?
    /// Where the backend scopes keep their queues and caches.
    public let directory: URL
    private let backend: (any BackendAdapter)?
    private let logger: Logger
    private let lock = NSLock()
    private var stores: [Scope: ScenarioStore] = [:]

    /// The stores of `appID`.
    ///
    /// - Parameters:
    ///   - version: the data model's version (see the type's documentation).
    ///   - directory: where backend scopes keep their queues; by default
    ///     `Application Support/SDUIStore/<appID>` (the temporary directory
    ///     when that cannot be found).
    ///   - backend: the adapter of the backend scopes; without one they keep
    ///     their changes queued.
    ///   - logger: where warnings (lenient coercions, recoveries) go.
    public init(appID: String, version: SemanticVersion? = nil, directory: URL? = nil,
                backend: (any BackendAdapter)? = nil,
                logger: Logger = Logger(label: "sdui.store")) {
        self.appID = appID
        self.version = version
        let base = (try? FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask,
                                                 appropriateFor: nil, create: false))
            ?? FileManager.default.temporaryDirectory
        self.directory = directory ?? base.appendingPathComponent("SDUIStore").appendingPathComponent(appID)
        self.backend = backend
        self.logger = logger
    }

    /// The store of `scope` (made on first use, the same instance afterwards).
    public func named(_ scope: Scope) -> KeyValueStore { store(scope) }

    /// The store of `scope`, as its concrete type (for the throwing
    /// variants and the inspector).
    public func store(_ scope: Scope) -> ScenarioStore {
        lock.lock()
        defer { lock.unlock() }
        if let s = stores[scope] { return s }
        let s = ScenarioStore(scope: scope, persistence: persistence(for: scope), logger: logger)
        stores[scope] = s
        return s
    }

    /// Ends a scenario: its session store is cleared and forgotten, and the
    /// sequences observing it end.
    public func endScenario(id: String) {
        lock.lock()
        let s = stores.removeValue(forKey: .scenarioSession(id: id))
        lock.unlock()
        s?.clear()
        s?.endObservation()
    }

    /// What `scope` saves to.
    private func persistence(for scope: Scope) -> StorePersistence? {
        switch scope {
        case .appMemory, .scenarioSession:
            return nil
        case .file(let url):
            return FilePersistence(url: url, version: version)
        case .userPrefs(let suite):
            return UserPrefsPersistence(suite: suite, appID: appID, version: version)
        case .backend(let namespace, let scenarioID):
            let name = Self.fileName([namespace, scenarioID].compactMap { $0 }.joined(separator: "--"))
            return BackendSync(namespace: namespace, scenarioID: scenarioID, adapter: backend,
                               queue: directory.appendingPathComponent("backend-\(name).json"),
                               version: version, logger: logger)
        }
    }

    /// `text` with every character but letters, digits, `-` and `_` made `_`.
    private static func fileName(_ text: String) -> String {
        String(text.map { (c: Character) -> Character in
            c.isLetter || c.isNumber || c == "-" || c == "_" ? c : "_"
        })
    }
}
