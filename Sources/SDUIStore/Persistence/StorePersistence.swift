// StorePersistence.swift - what a scope that outlives the process does with
// the store's state: load it once, save each committed change.

/// Where a store's committed state goes.  Called under the store's lock, so
/// calls never overlap.
protocol StorePersistence: AnyObject, Sendable {
    /// The state saved last time (nil when there is none yet), and a
    /// warning when it had to be recovered (a torn file, say).
    func load() throws -> (state: [String: StoreValue]?, warning: String?)
    /// Saves `state` after `change` was committed.  Returns the state
    /// actually saved when it differs from `state` (a file scope merges in
    /// what other processes saved: the store takes that as its state), nil
    /// when `state` was saved as it is.
    func commit(_ state: [String: StoreValue], change: StoreChange) throws -> [String: StoreValue]?
    /// Forgets everything saved (a major version bump, a scenario's end).
    func clear() throws
    /// Told which store it serves, after that store loaded (a backend scope
    /// applies pulled values to it).  A requirement, not only an extension
    /// method, so a call through `any StorePersistence` reaches the
    /// conformer's own version.
    func attach(_ store: ScenarioStore)
}

extension StorePersistence {
    /// Nothing by default.
    func attach(_ store: ScenarioStore) {}
}
