// FlowLimits.swift - the sizes a flow definition may reach, so that
// decoding and validating the largest accepted one stays fast.
import SDUICore

/// Bounds on a flow definition, checked when it is decoded
/// (``FlowDefinition/init(value:source:limits:)``, a `limit` error naming
/// the bound and the value) and again by ``FlowValidator`` (a `too_large`
/// issue) for a definition built in code.
///
/// Every check of the validator is linear in screens plus transitions but
/// one: whether an answer a condition reads can have been written before
/// it, which walks the graph once for every 64 distinct answer keys.  So
/// these bounds bound the validator's work too: at most
/// (maxScreens + maxTransitions) × maxAnswerKeys / 64 word steps for that
/// check, linear for the rest.
public struct FlowLimits: Sendable, Hashable {
    /// Most screens (`$.screens`).
    public var maxScreens: Int
    /// Most transitions (`next` entries) of all screens together.
    public var maxTransitions: Int
    /// Most blocks of all screens together.
    public var maxBlocks: Int
    /// Most distinct answer keys written (block keys and `set` actions on
    /// `answers.*`).
    public var maxAnswerKeys: Int
    /// Longest condition (`when`), in bytes.
    public var maxConditionBytes: Int

    /// Bounds from their parts; the defaults are 10,000 screens, 50,000
    /// transitions, 100,000 blocks, 10,000 answer keys and 4,096 bytes a
    /// condition.
    public init(maxScreens: Int = 10_000, maxTransitions: Int = 50_000, maxBlocks: Int = 100_000,
                maxAnswerKeys: Int = 10_000, maxConditionBytes: Int = 4_096) {
        self.maxScreens = maxScreens
        self.maxTransitions = maxTransitions
        self.maxBlocks = maxBlocks
        self.maxAnswerKeys = maxAnswerKeys
        self.maxConditionBytes = maxConditionBytes
    }

    /// `what` (a count or size) over `limit`: the message of the error or
    /// issue, e.g. `94000 screens, over the limit of 10000 (FlowLimits.maxScreens)`.
    static func over(_ value: Int, _ what: String, _ limit: Int, _ name: String) -> String {
        "\(value) \(what), over the limit of \(limit) (FlowLimits.\(name))"
    }
}
