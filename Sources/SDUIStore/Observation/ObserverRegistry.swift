// ObserverRegistry.swift - the store's observers: their paths (in a PathTrie)
// and what each does with a change that reaches it.
import SDUICore

/// The observers of one store.  Not thread-safe: the store calls it under
/// its lock.
struct ObserverRegistry {
    /// One observer: the paths it watches and its delivery.
    struct Entry {
        var paths: [KeyPath]
        /// What the observer watches, as the inspector lists it.
        var label: String
        var deliver: (StoreChange) -> Void
        /// Ends the observer's sequence when the store goes away.
        var finish: (() -> Void)?
    }

    private var trie = PathTrie()
    private(set) var entries: [Int: Entry] = [:]
    private var nextID = 1

    /// Adds an observer; returns its id.
    mutating func add(paths: [KeyPath], label: String, finish: (() -> Void)? = nil,
                      deliver: @escaping (StoreChange) -> Void) -> Int {
        let id = nextID
        nextID += 1
        entries[id] = Entry(paths: paths, label: label, deliver: deliver, finish: finish)
        for p in paths { trie.insert(id, at: p) }
        return id
    }

    /// Removes an observer (a no-op when already gone).
    mutating func remove(_ id: Int) {
        guard let e = entries.removeValue(forKey: id) else { return }
        for p in e.paths { trie.remove(id, at: p) }
    }

    /// The ids of observers some path in `touched` reaches.
    func reached(by touched: [KeyPath]) -> [Int] {
        var found: [Int] = []
        for p in touched { trie.collect(intersecting: p, into: &found) }
        // An observer of several paths, or a change of several patches,
        // meets the same id more than once: sort, then keep each once.
        found.sort()
        var out: [Int] = []
        out.reserveCapacity(found.count)
        for id in found where out.last != id { out.append(id) }
        return out
    }

    /// How many observers there are.
    var count: Int { entries.count }

    /// Removes every observer and returns their finish calls (to run
    /// outside the store's lock).
    mutating func removeAll() -> [() -> Void] {
        let finishes = entries.values.compactMap(\.finish)
        entries.removeAll()
        trie = PathTrie()
        return finishes
    }
}
