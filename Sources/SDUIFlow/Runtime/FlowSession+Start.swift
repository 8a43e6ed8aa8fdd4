// FlowSession+Start.swift - starting a flow session, or resuming it from
// the journal.
//
// Resume policy.  A session started over saved progress that does not
// match the definition (made with another definition, its content hash
// differs; or naming a screen, or back-stack screens, the definition does
// not have, as a file edited on disk may; or running without a screen)
// keeps the saved screen when the definition has it; otherwise it goes
// back to the nearest screen of the back stack that exists (dropping the
// stack above it), else to the start.  Back-stack entries that do not
// exist are dropped.  Either way a `flow_resume_mismatch` event records
// both hashes, the saved and the resumed screen, why, and what the policy
// did: a changed flow is never resumed silently.
//
// Saved progress is input like any file: the journal may have been edited
// or damaged.  Progress that does not decode (a number out of range, a
// member of the wrong type, an unknown status) is moved aside to a key of
// its own in the same journal, in the transaction that starts the flow
// afresh, and a `flow_resume_mismatch` and ``FlowSession/notices`` say
// where.  An event counter no run can reach (negative, or past
// FlowProgress.maxEventSeq) is a `corrupt` error naming the journal and the
// field, and the progress is left as it is (``FlowSession/reset()`` forgets
// it).  Nothing read from the journal is force-unwrapped or added to
// without a bound.

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

extension FlowSession {
    // MARK: Steps

    /// Starts the flow, or resumes it where the journal says it stopped.
    ///
    /// Fresh: `flow_start` and the start screen's `screen_view`.  Resumed
    /// in progress: the saved screen's `screen_view`, after a
    /// `flow_resume_mismatch` when the saved progress does not match the
    /// definition (see the file's essay).  Resumed after the end: nothing
    /// changes and no event is emitted.  Progress that does not decode is
    /// moved aside and the flow starts afresh (``notices`` says where).
    /// Calling it again is a no-op that returns the screen.
    ///
    /// - Throws: `SDUIError` `.corrupt` (naming the journal, the progress
    ///   key and the field) for an event counter no run can reach; the
    ///   journal's errors.
    @discardableResult
    public func start() throws -> FlowStep {
        try locked {
            if let p = current { return Self.step(p) }
            var events: [Event] = []
            var aside: [(key: String, value: Data?)] = []
            var saved: FlowProgress?
            if let raw = try journal.state(progressKey) {
                do {
                    // As deep as JSONDecoder read it (512 levels): what was saved resumes.
                    saved = try JSONValueDecoder().decode(FlowProgress.self, json: raw, source: journal.path, maxDepth: 512)
                } catch {
                    let key = asideKey()
                    // The one decoder's SDUIError names the journal, the category and the place.
                    let why = "\(error)"
                    aside.append((key, raw))
                    let note = "saved progress \"\(progressKey)\" in \(journal.path) does not decode (\(why)); "
                        + "moved aside to the key \"\(key)\", the flow starts afresh"
                    repairs.append(note)
                    configuration.logger.warning("\(EventKind.flowResumeMismatch.name)", metadata: [
                        "flow": "\(definition.id)", "policy": "restart", "detail": "\(note)"])
                    events.append((EventKind.flowResumeMismatch.name, nil, [
                        "policy": "restart", "reason": "the saved progress does not decode",
                        "detail": .string(why), "movedTo": .string(key)]))
                }
            }
            if let p = saved { try checkCounters(p) }
            guard var p = saved, p.flowId == definition.id else {
                // Fresh (or saved under this key by another flow: start over, saying so).
                if let old = saved {
                    repairs.append("saved progress \"\(progressKey)\" belongs to flow \"\(old.flowId)\"; "
                                   + "the flow starts afresh")
                    events.append((EventKind.flowResumeMismatch.name, old.screen, [
                        "savedFlowId": .string(old.flowId), "policy": "restart",
                        "reason": "the saved progress belongs to another flow"]))
                }
                let fresh = FlowProgress(flowId: definition.id, flowVersion: definition.version,
                                         contentHash: definition.contentHash, screen: definition.start,
                                         backStack: [], data: [:], status: .inProgress,
                                         eventSeq: saved?.eventSeq ?? 0, updatedAt: 0)
                events.append((EventKind.flowStart.name, definition.start, [:]))
                events.append((EventKind.screenView.name, definition.start, [:]))
                try commit(fresh, events, states: aside, from: nil)
                return .screen(definition.start)
            }
            guard p.status == .inProgress else {
                apply(p, from: nil)
                return Self.step(p)
            }
            let known = { (id: String) in self.screenIndex[id] != nil }
            let reason: String?
            if p.contentHash != definition.contentHash {
                reason = "the definition changed"
            } else if p.screen == nil {
                reason = "the saved progress has no screen"
            } else if let s = p.screen, !known(s) {
                reason = "the saved screen is not in the definition"
            } else if !p.backStack.allSatisfy(known) {
                reason = "screens of the back stack are not in the definition"
            } else {
                reason = nil
            }
            if let reason {
                let savedScreen = p.screen
                let keptStack = p.backStack.filter(known)
                let policy: String
                if let s = p.screen, known(s) {
                    policy = "kept"
                    p.backStack = keptStack
                } else if let i = p.backStack.lastIndex(where: known) {
                    policy = "back_stack"
                    p.screen = p.backStack[i]
                    p.backStack = Array(p.backStack[..<i]).filter(known)
                } else {
                    policy = "start"
                    p.screen = definition.start
                    p.backStack = []
                }
                let resumed = p.screen ?? definition.start
                repairs.append("saved progress \"\(progressKey)\" does not match flow \"\(definition.id)\" "
                               + "(\(reason)): resumed on \"\(resumed)\" (policy \(policy))")
                configuration.logger.notice("\(EventKind.flowResumeMismatch.name)", metadata: [
                    "flow": "\(definition.id)", "policy": "\(policy)", "reason": "\(reason)",
                    "savedScreen": "\(savedScreen ?? "-")", "resumedScreen": "\(resumed)"])
                events.append((EventKind.flowResumeMismatch.name, resumed, [
                    "savedHash": .string(p.contentHash), "hash": .string(definition.contentHash),
                    "savedVersion": .string(p.flowVersion), "savedScreen": savedScreen.map { .string($0) } ?? .null,
                    "resumedScreen": .string(resumed), "policy": .string(policy), "reason": .string(reason)]))
                p.contentHash = definition.contentHash
                p.flowVersion = definition.version
            }
            let screen = p.screen ?? definition.start
            p.screen = screen
            events.append((EventKind.screenView.name, screen, ["resumed": true]))
            try commit(p, events, states: aside, from: nil)
            return .screen(screen)
        }
    }

    /// Refuses saved progress whose event counter no run can reach.
    private func checkCounters(_ p: FlowProgress) throws {
        guard (0...FlowProgress.maxEventSeq).contains(p.eventSeq) else {
            throw SDUIError(.corrupt, "saved progress \"\(progressKey)\": eventSeq \(p.eventSeq) is impossible "
                            + "(0 to \(FlowProgress.maxEventSeq)); the journal was changed outside the flow "
                            + "(reset() forgets the progress)", input: journal.path)
        }
    }

    /// A key of its own for progress that does not decode:
    /// `<progress key>#undecodable-<ms>-<random>` (a random one when that
    /// would be too long for a journal key).
    private func asideKey() -> String {
        let stamp = Self.milliseconds(configuration.now())
        let tag = UUID().uuidString.lowercased().prefix(8)
        let key = "\(progressKey)#undecodable-\(stamp)-\(tag)"
        return key.utf8.count <= 1024 ? key : "undecodable/\(UUID().uuidString.lowercased())"
    }
}
