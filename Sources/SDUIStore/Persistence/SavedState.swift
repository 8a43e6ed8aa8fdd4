// SavedState.swift - the form in which a store's state is saved: the values
// as JSON, the version that saved them, and which strings are colours or URLs.
import SDUICore

/// A store's state as saved: `{"version": "1.2.0", "values": {...},
/// "kinds": {"brand.primary": "color", ...}}`.  JSON has no colour or URL
/// type, so `kinds` lists the paths whose strings are `.color` or `.url`
/// and reading restores them.
enum SavedState {
    /// The JSON form of `state`.
    static func encode(_ state: [String: StoreValue], version: SemanticVersion?) -> JSONValue {
        var kinds: [String: JSONValue] = [:]
        for (key, value) in state {
            guard let path = try? KeyPath(components: [.key(key)]) else { continue }
            collectKinds(value, path.components, into: &kinds)
        }
        var out: [String: JSONValue] = ["values": StoreValue.object(state).jsonValue]
        if let version { out["version"] = .string(version.description) }
        if !kinds.isEmpty { out["kinds"] = .object(kinds) }
        return .object(out)
    }

    /// Reads the JSON form back.  `dropped` is set when the saved major
    /// version differs from `version` (the values are then empty).
    static func decode(_ json: JSONValue, version: SemanticVersion?) throws
        -> (state: [String: StoreValue], dropped: SemanticVersion?) {
        guard case .object(let top) = json, case .object(let values)? = top["values"] else {
            throw SDUIError(.schema, "a saved store holds an object with a \"values\" object")
        }
        if let version, let text = top["version"]?.stringValue, let saved = SemanticVersion(text),
           version.dropsData(savedAt: saved) {
            return ([:], saved)
        }
        var root = StoreValue(JSONValue.object(values))
        for (text, kind) in top["kinds"]?.objectValue ?? [:] {
            guard let path = try? KeyPath(text), case .string(let s)? = path.get(in: root) else { continue }
            switch kind.stringValue {
            case "color": try? path.set(.color(s), in: &root)
            case "url": try? path.set(.url(s), in: &root)
            default: break
            }
        }
        return (root.pathObject ?? [:], nil)
    }

    /// Adds the paths of colour and URL leaves under `trail`.
    private static func collectKinds(_ v: StoreValue, _ trail: [KeyPath.Component], into kinds: inout [String: JSONValue]) {
        switch v {
        case .color, .url:
            if let p = try? KeyPath(components: trail) {
                kinds[p.description] = .string(v.pathKindText == "a colour" ? "color" : "url")
            }
        case .array(let items):
            for (i, item) in items.enumerated() { collectKinds(item, trail + [.index(i)], into: &kinds) }
        case .object(let members):
            for (k, item) in members { collectKinds(item, trail + [.key(k)], into: &kinds) }
        default:
            break
        }
    }
}
