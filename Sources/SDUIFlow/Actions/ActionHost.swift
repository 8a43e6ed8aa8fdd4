// ActionHost.swift - what an action's handler may do to the session it runs
// in: the few operations the action table's handlers are written against.
import Foundation
import SDUICore
import SDUIStore

/// The session an action runs in, as the handlers of ``FlowActions`` see it.
///
/// `FlowSession` and `ScreenSession` are the two, so flows and screens share
/// one action table.  Each operation takes the host's lock, checks that it
/// is running (`.argument` when it is not) and commits what it changed
/// before it returns.  An operation a host has no meaning for (`next` on a
/// screen outside a flow) throws `.argument` saying so, which the session
/// reports as a `render_error`.
protocol ActionHost: AnyObject, Sendable {
    /// Leaves the screen by its first transition whose condition holds.
    func next() throws -> FlowStep
    /// Returns to the previous screen.
    func back() throws -> FlowStep
    /// Ends early.
    func exit() throws -> FlowStep
    /// Shows screen `id`, keeping the one shown on the back stack.
    func navigate(to id: String) async throws -> FlowStep
    /// The id of the screen shown (the host is running).
    func shownScreen() throws -> String
    /// Writes `key` (a key path the row checked) to what `value` computes
    /// from the host's store and the value `key` holds now; nil removes it.
    /// The store's rules apply.  Returns the step (the screen stays).
    func write(_ key: KeyPath, _ value: (ScenarioStore, JSONValue?) throws -> JSONValue?) throws -> FlowStep
    /// Whether the expression `condition` holds in the host's store.
    ///
    /// - Throws: `SDUIError`: the expression's error; `.exprType` when it
    ///   gives anything but a boolean.
    func holds(_ condition: String) throws -> Bool
    /// Checks `keys` against the store's rules (and the shown screen's
    /// `required` inputs): `.screen` when all pass, else `.stayed` naming
    /// the first failure, each failing key's message kept for the screen.
    func validate(_ keys: [String]) throws -> FlowStep
    /// Commits an analytics event on the screen shown.
    func record(event: String, properties: [String: JSONValue]) throws -> FlowStep
    /// What links the host lets an action open.
    var linkPolicy: LinkPolicy { get }
    /// Hands an accepted link to the host's app.
    func open(_ url: URL)
    /// What `submit` posts and where by default: the body, the screen
    /// shown, the configured endpoint, and the name errors give as input.
    func submission() throws -> (body: JSONValue, screen: String, endpoint: URL?, input: String)
    /// The client `submit` and `request` send with.
    var httpClient: HTTPClient { get }
    /// What a `request` whose `url` is a path (`/cart/items`) is resolved
    /// against: the app's API; nil refuses such a request.
    var apiBase: URL? { get }
}
