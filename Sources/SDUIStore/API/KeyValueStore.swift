// KeyValueStore.swift - the store of one scope: read, write, observe, validate, compute.
import Foundation
#if canImport(Combine)
import Combine
#endif

/// The scenario data of one ``Scope``: values at key paths (`cart.total`,
/// `items[0].title`, `answers['first name']`).
///
/// **Threads.**  Every method may be called from any thread.  Reads are
/// synchronous.  Mutations of one store are serialized: each runs whole
/// (validation, the write, live expressions, persistence) before the next
/// starts, and observers receive its ``StoreChange`` in commit order.
///
/// **Key paths** follow ``SDUICore/KeyPath``'s grammar.  A malformed path
/// reads as nil and is refused by mutations with `.failed(reason:)`.
public protocol KeyValueStore: AnyObject, Sendable {
    /// The scope this store serves.
    var scope: Scope { get }
    /// The scenario this store belongs to, if any.
    var scenarioID: String? { get }

    // MARK: IO

    /// The value at `keyPath` (with a wildcard: the array of every value it
    /// reaches); nil when there is none.
    func get(_ keyPath: String) -> StoreValue?
    /// The value at `keyPath` decoded as `T` (decoded from the value
    /// itself, no JSON text in between).
    ///
    /// - Throws: ``SDUIError`` `.notFound` when there is no value,
    ///   `.schema` when it does not decode as `T` (the message names where).
    func get<T: Decodable>(_ keyPath: String, as: T.Type) throws -> T
    /// Whether a value (`null` included) is at `keyPath`.
    func exists(_ keyPath: String) -> Bool

    // MARK: Mutations

    /// Writes `value` at `keyPath`, creating missing objects on the way.
    /// Validated first (see ``configureValidation(_:)``).
    @discardableResult
    func set(_ keyPath: String, _ value: StoreValue) -> ValidationResult
    /// Merges `object`'s members into the object at `keyPath` (created when
    /// missing), each member validated at its own path.
    @discardableResult
    func merge(_ keyPath: String, _ object: [String: StoreValue]) -> ValidationResult
    /// Removes the value at `keyPath` (removing an array element shifts the
    /// later ones down).  Refused for a key whose rule says it is required.
    @discardableResult
    func remove(_ keyPath: String) -> ValidationResult

    // MARK: Batch

    /// Runs `block` as one transaction: its mutations are published as one
    /// ``StoreChange`` when the outermost transaction ends, and persisted
    /// once.  Nested transactions fold into the outer one.  Other threads'
    /// mutations wait until it ends.
    func transaction(_ block: (KeyValueStore) -> Void)

    // MARK: Observation

    /// The value at `keyPath` now, then each time a change touching it
    /// leaves it different; ends when the consumer stops iterating (or its
    /// task is cancelled).
    func values(for keyPath: String) -> StoreValues
    /// Every ``StoreChange`` with a patch that touches one of `keyPaths` (a
    /// parent or child path touches; wildcards match any index); ends when
    /// the consumer stops.
    func changes(for keyPaths: Set<String>) -> StoreChanges

    #if canImport(Combine)
    /// The value at `keyPath` now and after each change that alters it.
    func publisher(for keyPath: String) -> AnyPublisher<StoreValue?, Never>
    /// An object of `keyPaths` and their values (absent ones left out), now
    /// and after each change touching them.
    func publisher(for keyPaths: Set<String>) -> AnyPublisher<StoreValue, Never>
    #endif

    // MARK: Snapshot

    /// Every top-level key and its value.
    func snapshot() -> [String: StoreValue]
    /// Replaces everything with `root` (not validated; live expressions
    /// run), as one change.
    func replaceAll(with root: [String: StoreValue])

    // MARK: Validation

    /// Sets the mode and rules writes are checked against.
    func configureValidation(_ options: ValidationOptions)
    /// What a write of `value` at `keyPath` would meet, without writing.
    func validateWrite(_ keyPath: String, _ value: StoreValue) -> ValidationResult

    // MARK: Expressions

    /// Adds (or replaces, by id) a live expression and computes it once.
    /// Refused (with a logged error) when it would close a cycle;
    /// ``ScenarioStore/addLiveExpression(_:)`` is the throwing form.
    func registerLiveExpression(_ expr: LiveExpression)
    /// Removes the live expression with this id.
    func unregisterLiveExpression(id: String)
}

extension KeyValueStore {
    /// Every ``StoreChange`` with a patch that touches `keyPath`: the
    /// one-path form of ``changes(for:)-(Set<String>)``.
    public func changes(for keyPath: String) -> StoreChanges {
        changes(for: [keyPath] as Set<String>)
    }
}
