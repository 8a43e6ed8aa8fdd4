// StringReference.swift - how a prop names a catalog's text.
import SDUICore

/// The two ways a prop of a token, block or flow names a string of the
/// catalogs (``StringCatalog``):
///
/// - `"@string.checkout.title"`: the text of the key `checkout.title`;
/// - `{"$string": "cart.items", "count": "{{cart.count}}"}`: the text of
///   `cart.items` with arguments; each other member is an argument, whose
///   value may be a binding (`{{…}}`) or an expression (`@{…}`), and
///   `count` chooses a plural entry's form.
///
/// A key is 1–128 bytes of letters, digits, `_`, `.` and `-`.  A string
/// that starts `@string.` but holds no key is plain text.
public enum StringReference {
    /// The prefix of the short form.
    public static let prefix = "@string."
    /// The member of the long form that holds the key.
    public static let keyMember = "$string"

    /// The key `s` names in the short form, or nil.
    public static func key(of s: String) -> String? {
        guard s.hasPrefix(prefix) else { return nil }
        let key = String(s.dropFirst(prefix.count))
        return isKey(key) ? key : nil
    }

    /// The key an object names in the long form (a string `$string`), or nil.
    public static func key(of members: [String: JSONValue]) -> String? {
        guard let key = members[keyMember]?.stringValue, isKey(key) else { return nil }
        return key
    }

    /// Whether `key` is a catalog key.
    public static func isKey(_ key: String) -> Bool {
        let u = key.utf8
        guard !u.isEmpty, u.count <= 128 else { return false }
        return u.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x5F || b == 0x2E || b == 0x2D
        }
    }

    /// Every key `value` refers to, in either form, anywhere inside it
    /// (what `sdui strings check` counts as used).
    public static func keys(in value: JSONValue, into keys: inout Set<String>) {
        switch value {
        case .string(let s):
            if let k = key(of: s) { keys.insert(k) }
        case .array(let items):
            for i in items { Self.keys(in: i, into: &keys) }
        case .object(let members):
            if let k = key(of: members) { keys.insert(k) }
            for (_, v) in members { Self.keys(in: v, into: &keys) }
        default:
            break
        }
    }
}
