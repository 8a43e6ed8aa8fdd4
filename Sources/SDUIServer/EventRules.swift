// EventRules.swift - what an analytics event's members may hold, checked once for POST /events and both stores.
#if Server
import Foundation
import SDUI

/// The rules for an analytics event, as schemas/events.json states them:
/// the type of every member the registry reads (``members``, checked by
/// `POST /events` on the JSON of each event), and what the members it
/// indexes (`id`, `name`, `flowId`, `userId`) may hold: one check,
/// applied by `POST /events` before anything is stored and by every
/// store's ``RegistryStore/storeEvents(_:)``, so SQLite and PostgreSQL
/// take and refuse the same events.
///
/// Lengths are counted in Unicode scalars, as JSON Schema's `maxLength`
/// counts characters, so the schema and the server agree on every string
/// (50 × "€" is 50 long, 150 bytes of UTF-8).  128 of them are at most 512
/// bytes, which both stores index without trouble.
///
/// PostgreSQL's `text` cannot hold U+0000; SQLite can.  A NUL that one
/// store refused at the insert failed the whole batch as a store error
/// (503, "send them again"), so the uploader resent it for ever.  Here it
/// is the client's fault, named by event and field.  (The JSON decoder
/// already refuses invalid UTF-8 and lone surrogates, the other text
/// PostgreSQL refuses; the event's whole JSON is stored with NUL escaped
/// as `\u0000`, which both stores take.)
public enum EventRules {
    /// Most Unicode scalars (JSON Schema's characters) in an event's `id`
    /// and `name`: the bound of every event name, ``EventKind/maxNameLength``,
    /// which the SDK's kinds and the docs share.
    public static let maxIDLength = EventKind.maxNameLength

    /// One member of an event the registry reads: its JSON name, whether
    /// every event has it, what it must hold (in words, for the refusal),
    /// and the check of its value.
    public struct Member: Sendable {
        /// The member's name in the event's JSON.
        public let name: String
        /// An event without it is refused; an optional member may be left out.
        public let required: Bool
        /// What the value must be, completing "must be …".
        public let rule: String
        let accepts: @Sendable (JSONValue) -> Bool
    }

    /// Every member the registry reads, with the type schemas/events.json
    /// gives it, in the order they are checked.  Other members are kept as
    /// they are.
    public static let members: [Member] = [
        Member(name: "id", required: true, rule: "a string of 1 to \(maxIDLength) characters") { $0.stringValue != nil },
        Member(name: "name", required: true, rule: "a string of 1 to \(maxIDLength) characters") { $0.stringValue != nil },
        Member(name: "flowId", required: true, rule: "a string") { $0.stringValue != nil },
        Member(name: "userId", required: true, rule: "a string") { $0.stringValue != nil },
        Member(name: "timestamp", required: true, rule: "a non-negative integer (ms since the epoch)") {
            (integer($0) ?? -1) >= 0
        },
        Member(name: "flowVersion", required: false, rule: "a string") { $0.stringValue != nil },
        Member(name: "screen", required: false, rule: "a string or null") {
            if case .null = $0 { return true }
            return $0.stringValue != nil
        },
        Member(name: "session", required: false, rule: "a string") { $0.stringValue != nil },
        Member(name: "seq", required: false, rule: "a non-negative integer") { (integer($0) ?? -1) >= 0 },
        Member(name: "properties", required: false, rule: "an object") { $0.objectValue != nil },
    ]

    /// A JSON number that is an integer of signed 64 bits, as JSON Schema's
    /// `integer` reads one (`3` and `3.0` alike), or nil.
    public static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let i): return i
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    /// The first member of `event` (one element of a batch's `events`)
    /// that is missing or of another type than ``members`` gives: its name
    /// and why; nil when every member the registry reads is as it should be.
    public static func typeFault(in event: [String: JSONValue]) -> (field: String, reason: String)? {
        for m in members {
            guard let value = event[m.name] else {
                if m.required { return (m.name, "\"\(m.name)\" is missing; it must be \(m.rule)") }
                continue
            }
            if !m.accepts(value) { return (m.name, "\"\(m.name)\" must be \(m.rule)") }
        }
        return nil
    }

    /// One event refused: where it is in its batch, its id when it has
    /// one, the field at fault and why.
    public struct Refusal: Sendable, Equatable {
        /// The event's index in its batch (from 0).
        public var index: Int
        /// The event's `id`, when it is a string.
        public var id: String?
        /// The member at fault (one of ``members``), or nil when the event
        /// is not an object.
        public var field: String?
        /// Why, in words, naming the event.
        public var message: String

        /// A refusal from its parts.
        public init(index: Int, id: String?, field: String?, message: String) {
            self.index = index
            self.id = id
            self.field = field
            self.message = message
        }
    }

    /// The first indexed field of `event` that breaks a rule: its JSON
    /// member name and why; nil when the event may be stored.
    public static func fault(in event: StoredEvent) -> (field: String, reason: String)? {
        for (field, value, bounded) in [("id", event.id, true), ("name", event.name, true),
                                        ("flowId", event.flowID, false), ("userId", event.userID, false)] {
            if bounded, value.isEmpty || value.unicodeScalars.count > maxIDLength {
                return (field, "\"\(field)\" must be a string of 1 to \(maxIDLength) characters")
            }
            if value.utf8.contains(0) {
                return (field, "\"\(field)\" contains U+0000 (NUL), which the registry does not store")
            }
        }
        if event.timestamp < 0 {
            return ("timestamp", "\"timestamp\" must be a non-negative integer (ms since the epoch)")
        }
        return nil
    }

    /// The refusal of `event`, at `index` of its batch, or nil.
    public static func refusal(of event: StoredEvent, at index: Int) -> Refusal? {
        guard let (field, reason) = fault(in: event) else { return nil }
        return Refusal(index: index, id: event.id, field: field, message: "\(label(index, event.id)): \(reason)")
    }

    /// `events[3] (id "…")`: an event named for a message, its id escaped.
    static func label(_ index: Int, _ id: String?) -> String {
        "events[\(index)]" + (id.map { " (id \(EchoedInput.quoted($0, maxBytes: 64)))" } ?? "")
    }

    /// Throws a `.invalid` ``RegistryError`` naming the first event of
    /// `events` that breaks a rule: what a store calls before it writes.
    public static func check(_ events: [StoredEvent]) throws {
        for (i, e) in events.enumerated() {
            if let r = refusal(of: e, at: i) {
                throw RegistryError(.invalid, r.message, subject: EchoedInput.visible(e.id, maxBytes: 64))
            }
        }
    }
}
#endif
