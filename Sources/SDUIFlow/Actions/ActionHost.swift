// ActionHost.swift - what an action's handler may do to the session it runs
// in: the few operations the action table's handlers are written against.
import Foundation
import SDUICore
import SDUIStore

/// The session an action runs in, as the handlers of ``FlowActions`` see it.
///
/// `FlowSession` is one; a screen's session can be another, so flows and
/// screens share one action table.  Each operation takes the host's lock,
/// checks that it is running (`.argument` when it is not) and commits what
/// it changed before it returns.
protocol ActionHost: AnyObject, Sendable {
    /// Leaves the screen by its first transition whose condition holds.
    func next() throws -> FlowStep
    /// Returns to the previous screen.
    func back() throws -> FlowStep
    /// Ends early.
    func exit() throws -> FlowStep
    /// The id of the screen shown (the host is running).
    func shownScreen() throws -> String
    /// Changes the host's data: `change` gets the data as one object and
    /// the store to evaluate expressions in; what it leaves is committed.
    /// Returns the step (the screen stays).
    func updateData(_ change: (inout JSONValue, ScenarioStore) throws -> Void) throws -> FlowStep
    /// Whether the expression `condition` holds in the host's store.
    ///
    /// - Throws: `SDUIError`: the expression's error; `.exprType` when it
    ///   gives anything but a boolean.
    func holds(_ condition: String) throws -> Bool
    /// Commits an analytics event on the screen shown.
    func record(event: String, properties: [String: JSONValue]) throws -> FlowStep
    /// What links the host lets an action open.
    var linkPolicy: LinkPolicy { get }
    /// Hands an accepted link to the host's app.
    func open(_ url: URL)
    /// What `submit` posts and where by default: the body, the screen
    /// shown, the configured endpoint, and the name errors give as input.
    func submission() throws -> (body: JSONValue, screen: String, endpoint: URL?, input: String)
    /// The client `submit` posts with.
    var httpClient: HTTPClient { get }
}
