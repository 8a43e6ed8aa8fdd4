// ScreenState.swift - the five states of a screen and the seven transitions
// between them (the diagram of docs/flows.md, exactly).
import SDUICore

/// Where a screen is on its way to the user:
///
/// ```
/// START --initiate--> FETCH --load data--> LOAD --success--> PRESENT
///                       |  ^                 |                  |
///               bad data|  |retry     failure|                  |react
///                       v  |                 v                  |
///                      ERROR <---------------+      FETCH <-----+
/// ```
public enum ScreenState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case start = "START", fetch = "FETCH", load = "LOAD", present = "PRESENT", error = "ERROR"

    /// The state's name as in the diagram (`FETCH`).
    public var description: String { rawValue }
}

/// A transition of the screen state machine, named as in its diagram.
public enum ScreenTransition: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// START → FETCH: the screen is asked for.
    case initiate
    /// FETCH → LOAD: its payload arrived and decoded.
    case loadData = "load data"
    /// LOAD → PRESENT: its render tree is ready.
    case success
    /// PRESENT → FETCH: something the screen shows changed; fetch again.
    case react
    /// FETCH → ERROR: the payload could not be had or did not decode.
    case badData = "bad data"
    /// LOAD → ERROR: the render tree could not be made.
    case failure
    /// ERROR → FETCH: try again.
    case retry

    /// The transition's name as in the diagram (`load data`).
    public var description: String { rawValue }

    /// The state this transition leaves from, and the one it leads to.
    public var edge: (from: ScreenState, to: ScreenState) {
        switch self {
        case .initiate: (.start, .fetch)
        case .loadData: (.fetch, .load)
        case .success: (.load, .present)
        case .react: (.present, .fetch)
        case .badData: (.fetch, .error)
        case .failure: (.load, .error)
        case .retry: (.error, .fetch)
        }
    }

    /// The transitions allowed from `state`, in the order above.
    public static func allowed(from state: ScreenState) -> [ScreenTransition] {
        allCases.filter { $0.edge.from == state }
    }
}
