// FlowDataPatch.swift - one change to a flow's data: a set or a remove at a
// key path, the unit a step is published to the session's store in.
//
// A step's change is the difference between the data it started from and
// the data it commits, computed member by member: objects present on both
// sides are compared inside, so answering `answers.email` is one patch at
// `answers.email`, and the store's observers of `answers.name` are not
// reached; a new object is written member by member too (the store creates
// the objects on the way), an empty one whole.  Arrays and scalars are
// leaves (a changed array is one `set` of the whole array: an element's
// index is no identity).  A member whose path cannot be written as a key
// path (past KeyPath's component or text bound) is covered by setting its
// nearest parent that can; a top-level member that cannot be named at all
// (saved progress may hold one) is reported to the caller, which then
// replaces the store's data whole.  The walk visits each value of both trees
// at most once, so its work is bounded by the data's size.
import SDUICore
import SDUIStore

/// A set or a remove at one key path of a flow's data.
struct FlowDataPatch: Sendable, Hashable {
    /// What the patch does.
    enum Op: Sendable, Hashable {
        /// Writes the value at the path.
        case set(JSONValue)
        /// Removes the value at the path.
        case remove
    }

    /// Where (a path of the data, the store's key path).
    var path: KeyPath
    /// What.
    var op: Op

    /// The patches that turn `old` into `new`, top-level members named in
    /// `skip` left out (see the file's essay), and the top-level members
    /// whose change could not be named as a path.
    static func diff(from old: [String: JSONValue], to new: [String: JSONValue],
                     skipping skip: Set<String> = []) -> (patches: [FlowDataPatch], unnamed: [String]) {
        var patches: [FlowDataPatch] = []
        var unnamed: [String] = []
        for key in Set(old.keys).union(new.keys).sorted() where !skip.contains(key) && old[key] != new[key] {
            guard let path = try? KeyPath(components: [.key(key)]) else {
                unnamed.append(key)
                continue
            }
            walk(old[key], new[key], at: path, into: &patches)
        }
        return (patches, unnamed)
    }

    /// Adds the patches turning `old` into `new` at `path` (they differ).
    private static func walk(_ old: JSONValue?, _ new: JSONValue?, at path: KeyPath, into patches: inout [FlowDataPatch]) {
        guard let new else {
            patches.append(FlowDataPatch(path: path, op: .remove))
            return
        }
        // A new object is written member by member over an object or
        // nothing (the store creates the objects on the way), so creating
        // `answers` with its first answer reaches only that answer's
        // observers; over anything else, or empty, it is written whole.
        let a: [String: JSONValue]
        switch (old, new) {
        case (.object(let o)?, .object): a = o
        case (nil, .object(let o)) where !o.isEmpty: a = [:]
        default:
            patches.append(FlowDataPatch(path: path, op: .set(new)))
            return
        }
        guard case .object(let b) = new else { return }
        var inner: [(KeyPath, JSONValue?, JSONValue?)] = []
        for key in Set(a.keys).union(b.keys).sorted() where a[key] != b[key] {
            guard let child = try? KeyPath(components: path.components + [.key(key)]) else {
                // Too deep or too long to name: the whole object at `path`.
                patches.append(FlowDataPatch(path: path, op: .set(new)))
                return
            }
            inner.append((child, a[key], b[key]))
        }
        for (child, x, y) in inner { walk(x, y, at: child, into: &patches) }
    }

    /// Applies `patches` to `store` as one transaction (one change for its
    /// observers, each patch reaching only the observers of its path), and
    /// returns the refusals (the store's validation may refuse a write), in
    /// words.
    static func publish(_ patches: [FlowDataPatch], to store: KeyValueStore) -> [String] {
        guard !patches.isEmpty else { return [] }
        var refused: [String] = []
        store.transaction { kv in
            for p in patches {
                let verdict: ValidationResult
                switch p.op {
                case .set(let v): verdict = kv.set(p.path.description, StoreValue(v))
                case .remove: verdict = kv.remove(p.path.description)
                }
                if verdict != .ok { refused.append("\(p.path): \(verdict)") }
            }
        }
        return refused
    }
}
