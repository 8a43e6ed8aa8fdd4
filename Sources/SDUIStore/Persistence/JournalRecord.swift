// JournalRecord.swift - one record of a file scope's journal: the new
// values of the top-level members one commit changed, as JSON text.
//
// A record holds whole top-level members, not the commit's patches: it
// says "member m is now v" (or "m is gone"), never "append to m" or
// "remove index 0 of m".  So replaying records is exact whatever the base
// (the state a record was written on, which the snapshot and the records
// before it rebuild) and idempotent: replaying records that the snapshot
// already holds (a kill between writing the snapshot and deleting the
// records it folded in) gives the snapshot again, since each member ends
// at the value of the last record that names it, which is its value in
// the snapshot.  The form is that of SavedState (`values` and `kinds`, so
// colours and URLs come back) plus `removed`: {"values": {...}, "kinds":
// {...}, "removed": ["a", ...]}.
import Foundation
import SDUICore

/// A journal record: members set and members removed.
struct JournalRecord: Equatable {
    var set: [String: StoreValue] = [:]
    var removed: [String] = []

    /// The record that gives `members` the values they have in `state`.
    init(members: Set<String>, of state: [String: StoreValue]) {
        for m in members.sorted() {
            if let v = state[m] { set[m] = v } else { removed.append(m) }
        }
    }

    /// The record's JSON text.
    ///
    /// - Throws: ``SDUIError`` `.argument` for a number JSON cannot hold.
    func encoded() throws -> [UInt8] {
        guard case .object(var top) = SavedState.encode(set, version: nil) else { return [] }
        if !removed.isEmpty { top["removed"] = .array(removed.map { .string($0) }) }
        var out = ""
        try Self.write(.object(top), to: &out)
        return Array(out.utf8)
    }

    /// Reads a record's JSON text.  `source` names it in errors.
    ///
    /// - Throws: ``SDUIError`` when the text is not JSON or not a record.
    init(bytes: [UInt8], source: String) throws {
        let json = try JSONValue(json: Data(bytes), source: source, maxDepth: JSONValue.defaultMaxDepth + 4)
        set = try SavedState.decode(json, version: nil).state
        switch json["removed"] {
        case nil: break
        case .array(let names)?:
            removed = try names.map { name in
                guard case .string(let s) = name else {
                    throw SDUIError(.schema, "\"removed\" holds member names (strings)", input: source)
                }
                return s
            }
        default:
            throw SDUIError(.schema, "\"removed\" is an array of member names", input: source)
        }
    }

    /// `state` with the record applied.
    func apply(to state: inout [String: StoreValue]) {
        for (m, v) in set { state[m] = v }
        for m in removed { state[m] = nil }
    }

    /// `v` as compact JSON text.  A double keeps a decimal point (so `3.0`
    /// reads back as a decimal, not the integer 3).
    /// (BackendSync writes its queue items with it too.)
    static func write(_ v: JSONValue, to out: inout String) throws {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let n): out += String(n)
        case .double(let d):
            guard d.isFinite else { throw SDUIError(.argument, "a store value holds \(d), which JSON cannot hold") }
            let text = JSONValue.text(d)
            out += text
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { out += ".0" }
        case .string(let s): out += JSONValue.literal(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                try write(item, to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (k, item)) in members.enumerated() {
                if i > 0 { out += "," }
                out += JSONValue.literal(k)
                out += ":"
                try write(item, to: &out)
            }
            out += "}"
        }
    }
}
