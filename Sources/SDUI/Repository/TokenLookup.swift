// TokenLookup.swift - the outcome of looking a token up.
import SDUICore

/// The outcome of looking a token up.
public enum TokenLookup: Sendable {
    /// The token, and where it came from.
    case found(DesignToken, TokenSource)
    /// Not cached and the registry cannot be reached: render a skeleton.
    case offline
    /// Any other failure (unknown id, bad answer, bad signature…): render a
    /// placeholder.
    case unavailable(SDUIError)

    /// The token, when found.
    public var token: DesignToken? {
        if case .found(let t, _) = self { return t }
        return nil
    }
}
