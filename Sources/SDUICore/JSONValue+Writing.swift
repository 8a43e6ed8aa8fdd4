// JSONValue+Writing.swift - a JSON value as compact text, members sorted:
// the one writer for JSON the SDK makes by hand (an event for the outbox).
extension JSONValue {
    /// The value as compact JSON text, object members sorted by name:
    /// strings by ``literal(_:)``, doubles by ``text(_:)-swift.type.method``
    /// (the one number rule; a non-finite double, which JSON cannot hold,
    /// as `null`), integers as digits.  What `JSONEncoder` with sorted keys
    /// gives for the same value, as JSON (its bytes may differ: escapes,
    /// `16` for `16.0`), without its cost.
    public var jsonText: String {
        var out = ""
        write(into: &out)
        return out
    }

    /// Appends the value's text to `out`.
    func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? Self.text(d) : "null"
        case .string(let s): out += Self.literal(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                out += Self.literal(key)
                out += ":"
                members[key]!.write(into: &out)
            }
            out += "}"
        }
    }
}
