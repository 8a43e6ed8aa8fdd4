// FlowSession+Steps.swift - the steps of a running flow: answer, next,
// back, exit.  Each reads the running progress (its data from the store),
// and commits (FlowSession+Data.swift).

import Foundation
import Logging
import SDUI
import SDUICore
import SDUIStore

extension FlowSession {
    // MARK: Steps

    /// Records an answer: `answers.<key>` in the store, and an `answer` event.
    ///
    /// - Throws: `SDUIError` `.argument` when the flow is not running or the
    ///   current screen has no block writing `key`.
    public func answer(_ key: String, _ value: JSONValue) throws {
        try locked {
            var (p, screen, _) = try running()
            guard screen.inputs.contains(where: { $0.key == key }) else {
                throw SDUIError(.argument, "screen \"\(screen.id)\" has no input with key \"\(key)\" (it has: "
                                + screen.inputs.map(\.key).joined(separator: ", ") + ")", input: definition.id)
            }
            let base = p.data
            var answers = p.answers
            answers[key] = value
            p.data["answers"] = .object(answers)
            try commit(p, [(EventKind.answer.name, screen.id, ["key": .string(key), "value": value])], from: base)
        }
    }

    /// Leaves the screen by its first transition whose condition holds, or
    /// completes the flow when it has none.  Stays (and says why) while a
    /// required answer is missing or when no condition holds.
    @discardableResult
    public func next() throws -> FlowStep {
        try locked {
            var (p, screen, index) = try running()
            if let missing = screen.inputs.first(where: { $0.required && !Self.answered(p.answers[$0.key]) }) {
                let why = "an answer to \"\(missing.key)\" is required"
                blockedReason = why
                return .stayed(why)
            }
            if screen.completes {
                p.backStack.append(screen.id)
                p.screen = nil
                p.status = .completed
                try commit(p, [(EventKind.flowComplete.name, screen.id, [:])], from: p.data)
                return .completed
            }
            var renderErrors: [Event] = []
            var target: String?
            for (k, t) in screen.next.enumerated() {
                guard let cond = conditions[index][k] else { target = t.to; break }
                do {
                    if try cond.get().isTrue(in: store) { target = t.to; break }
                } catch {
                    let e = error as? SDUIError
                    configuration.logger.warning("\(EventKind.renderError.name)", metadata: [
                        "flow": "\(definition.id)", "screen": "\(screen.id)", "path": "\(t.jsonPath).when",
                        "error": "\(error)"])
                    renderErrors.append((EventKind.renderError.name, screen.id, [
                        "path": .string("\(t.jsonPath).when"),
                        "detail": .string("condition \(t.when ?? ""): " + (e.map { "\($0.category.rawValue): \($0.message)" } ?? "\(error)"))]))
                }
            }
            guard let to = target else {
                let why = "no transition's condition holds on screen \"\(screen.id)\""
                if !renderErrors.isEmpty { try commit(p, renderErrors, from: p.data) }
                blockedReason = why
                return .stayed(why)
            }
            p.backStack.append(screen.id)
            p.screen = to
            try commit(p, renderErrors + [(EventKind.screenView.name, to, [:])], from: p.data)
            return .screen(to)
        }
    }

    /// Returns to the previous screen of the back stack.
    @discardableResult
    public func back() throws -> FlowStep {
        try locked {
            var p = try running().progress
            guard let previous = p.backStack.popLast() else {
                blockedReason = "there is no previous screen"
                return .stayed("there is no previous screen")
            }
            p.screen = previous
            try commit(p, [(EventKind.screenView.name, previous, ["back": true])], from: p.data)
            return .screen(previous)
        }
    }

    /// Ends the flow early (`flow_exit`).
    @discardableResult
    public func exit() throws -> FlowStep {
        try locked {
            var p = try running().progress
            let screen = p.screen
            p.screen = nil
            p.status = .exited
            try commit(p, [(EventKind.flowExit.name, screen, [:])], from: p.data)
            return .exited
        }
    }
}
