// EventRules.swift - what an analytics event's indexed fields may hold, checked once for POST /events and both stores.
#if Server
import Foundation
import SDUI

/// The rules for the fields the registry indexes of an event (`id`,
/// `name`, `flowId`, `userId`): one check, applied by `POST /events`
/// before anything is stored and by every store's
/// ``RegistryStore/storeEvents(_:)``, so SQLite and PostgreSQL take and
/// refuse the same events.
///
/// PostgreSQL's `text` cannot hold U+0000; SQLite can.  A NUL that one
/// store refused at the insert failed the whole batch as a store error
/// (503, "send them again"), so the uploader resent it for ever.  Here it
/// is the client's fault, named by event and field.  (The JSON decoder
/// already refuses invalid UTF-8 and lone surrogates, the other text
/// PostgreSQL refuses; the event's whole JSON is stored with NUL escaped
/// as `\u0000`, which both stores take.)
public enum EventRules {
    /// Most bytes of UTF-8 in an event's `id` and `name`.
    public static let maxIDBytes = 128

    /// One event refused: where it is in its batch, its id when it has
    /// one, the field at fault and why.
    public struct Refusal: Sendable, Equatable {
        /// The event's index in its batch (from 0).
        public var index: Int
        /// The event's `id`, when it is a string.
        public var id: String?
        /// The member at fault (`id`, `name`, `flowId`, `userId`,
        /// `timestamp`), or nil when the event is not an object.
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
            if bounded, value.isEmpty || value.utf8.count > maxIDBytes {
                return (field, "\"\(field)\" must be a string of 1 to \(maxIDBytes) bytes")
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
