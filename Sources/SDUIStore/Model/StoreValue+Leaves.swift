// StoreValue+Leaves.swift - a value as the list of its leaves by key path,
// the form the inspector and `sdui store inspect` show.
import SDUICore

extension StoreValue {
    /// Every leaf under this value with its key path, depth first, object
    /// members in key order.  A scalar, and an empty object or array, is a
    /// leaf; `at` is this value's own path.
    public func leaves(at path: KeyPath) -> [(keyPath: KeyPath, value: StoreValue)] {
        var out: [(keyPath: KeyPath, value: StoreValue)] = []
        collectLeaves(at: path.components, into: &out)
        return out
    }

    /// The leaves of a store's top-level members (a snapshot), in key order.
    public static func leaves(of members: [String: StoreValue]) -> [(keyPath: KeyPath, value: StoreValue)] {
        var out: [(keyPath: KeyPath, value: StoreValue)] = []
        for key in members.keys.sorted() { members[key]!.collectLeaves(at: [.key(key)], into: &out) }
        return out
    }

    /// Appends the leaves under this value, whose path is `trail`.
    private func collectLeaves(at trail: [KeyPath.Component], into out: inout [(keyPath: KeyPath, value: StoreValue)]) {
        switch self {
        case .object(let members) where !members.isEmpty:
            for k in members.keys.sorted() { members[k]!.collectLeaves(at: trail + [.key(k)], into: &out) }
        case .array(let items) where !items.isEmpty:
            for (i, item) in items.enumerated() { item.collectLeaves(at: trail + [.index(i)], into: &out) }
        default:
            // A path built from a value's own members always forms a key path.
            if let p = try? KeyPath(components: trail) { out.append((p, self)) }
        }
    }
}
