// FlowSession+Data.swift - the commit of a step and the path of the flow's
// data: the journal, then the store.
//
// Every step is computed first and then committed: the new progress and the
// events the step caused go to the journal in one transaction, and only
// when that commit returns does the session (and its store) take the new
// state.  So what the session shows was committed, and after a kill the
// next session resumes exactly at the last committed step, with its events
// queued once.
//
// Data.  The flow's data lives once: the journal's progress is its durable
// truth, the session's ``FlowSession/store`` its working copy, which flow
// code reads (conditions, `set` expressions, bound screens) and the host may
// write.  A step starts from the store's data (the host's writes included),
// computes its change as patches (FlowDataPatch: a set or a remove at a key
// path), commits the progress with the patched data, and then applies only
// those patches to the store, so answering `answers.email` reaches only the
// observers of `answers.email`.  A write the host makes to the store is
// therefore journaled by the session's next commit (any step, answer,
// action or event) and survives it; until then it is in memory only, as the
// host wrote it, and a kill before that commit loses it: after a kill the
// data is exactly what was last committed, never half of a step.  Only
// ``FlowSession/start()`` puts the journal's data into the store wholesale
// (what the store held before is not the flow's), and ``FlowSession/reset()``
// removes it.  When the store cannot take a patch (its validation refuses
// it, or saved data holds a key no key path names), its data is replaced
// whole, unvalidated, so that it still holds what was committed and the next
// step does not drop it.  `attributes` belong to the host: never
// journaled, set from the configuration by `start()` (and whenever the store
// has none), and the host's writes under them are left alone.

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

extension FlowSession {
    // MARK: Data

    /// Forgets the saved progress of this flow key and user (the next
    /// ``start()`` begins afresh); queued events stay queued.
    public func reset() throws {
        try locked {
            try journal.commit(states: [(progressKey, nil)])
            current = nil
            blockedReason = nil
            apply(nil, from: nil)
        }
    }

    /// The flow's data as the store holds it now: every top-level member but
    /// the host's `attributes`.
    func storeData() -> [String: JSONValue] {
        var data = store.snapshot().mapValues(\.jsonValue)
        data["attributes"] = nil
        return data
    }

    /// Commits `p` with `events` (name, screen, properties) and the extra
    /// `states` rows in one transaction, then makes it the session's state
    /// and publishes its data's change from `base` (the data the step
    /// started from; nil: what the store holds now) to the store.
    ///
    /// - Throws: `.corrupt` when the event counter would pass
    ///   FlowProgress.maxEventSeq; the journal's errors.
    func commit(_ p: FlowProgress, _ events: [Event], states: [(key: String, value: Data?)] = [],
                        from base: [String: JSONValue]?) throws {
        var next = p
        next.data["attributes"] = nil
        let now = Self.milliseconds(configuration.now())
        next.updatedAt = now
        guard next.eventSeq >= 0, events.count <= FlowProgress.maxEventSeq - next.eventSeq else {
            throw SDUIError(.corrupt, "progress \"\(progressKey)\": eventSeq \(next.eventSeq) leaves no room for "
                            + "\(events.count) more event(s) (at most \(FlowProgress.maxEventSeq))", input: journal.path)
        }
        var encoded: [Data] = []
        for (name, screen, properties) in events {
            next.eventSeq += 1
            encoded.append(FlowEvent(name: name, flowId: definition.id, flowVersion: definition.version,
                                     screen: screen, timestamp: now, seq: next.eventSeq,
                                     userId: configuration.userID, properties: properties).json)
        }
        try journal.commit(states: states + [(progressKey, next.json)], events: encoded)
        if next.screen != current?.screen { blockedReason = nil }
        if let i = events.lastIndex(where: { $0.0 == EventKind.screenView.name }) {
            viewSeq = next.eventSeq - (events.count - 1 - i)
        }
        emittedNames += events.map(\.0)
        apply(next, from: base)
    }

    /// Makes `p` the session's state (nil: none, after a reset) and
    /// publishes the change of its data (none: empty) from `base` (nil: what
    /// the store holds now) to the store, with the host's attributes when
    /// the store has none (or `base` is nil: the store is taken over).
    func apply(_ p: FlowProgress?, from base: [String: JSONValue]?) {
        current = p
        let data = p?.data ?? [:]
        var (patches, unnamed) = FlowDataPatch.diff(from: base ?? storeData(), to: data, skipping: ["attributes"])
        let attributes = JSONValue.object(configuration.attributes)
        let held = store.get("attributes")
        if base == nil ? held?.jsonValue != attributes : held == nil,
           let path = try? KeyPath(components: [.key("attributes")]) {
            patches.append(FlowDataPatch(path: path, op: .set(attributes)))
        }
        let refused = unnamed.isEmpty ? FlowDataPatch.publish(patches, to: store) : []
        guard !unnamed.isEmpty || !refused.isEmpty else { return }
        // A top-level key no key path can name (saved progress may hold
        // one), or a patch the store's validation refused: only a
        // replacement of the whole data (not validated) makes the store hold
        // what was committed, as it must, or the next step would drop it
        // from the journal.
        for why in refused {
            configuration.logger.warning("the flow's store refused a change of its data; its data is replaced whole",
                                         metadata: ["flow": "\(definition.id)", "detail": "\(why)"])
        }
        var root = data.mapValues(StoreValue.init)
        root["attributes"] = base == nil ? StoreValue(attributes) : store.get("attributes") ?? StoreValue(attributes)
        store.replaceAll(with: root)
    }
}
