// LiveExpression.swift - a value the store computes from other values and keeps current.
import SDUICore

/// When a recomputed value is written.
public enum LiveExpressionPolicy: String, Equatable, Hashable, Sendable, Codable {
    /// Only when it differs from the value at the output path.
    case writeIfChanged
    /// Every time it is recomputed (observers see a patch each time).
    case alwaysWrite
}

/// A value the store computes from the values at other key paths and
/// writes to ``outputKeyPath``, inside the mutation that changed one of
/// them.
///
/// Two forms: a closure (``init(id:outputKeyPath:dependsOn:compute:policy:)``,
/// whose dependencies you declare), and an expression of the expression
/// language (``init(id:outputKeyPath:expression:policy:)``, e.g.
/// `"sum(items[*].price)"`), evaluated by the C core, whose dependencies are
/// the paths it reads, so a server can send it as data.
public struct LiveExpression: Equatable, Sendable {
    /// The expression's id (registering another with the same id replaces it).
    public let id: String
    /// Where the result is written.
    public let outputKeyPath: String
    /// The key paths whose changes trigger a recompute.
    public let dependsOn: Set<String>
    /// Computes the value from `get` (a read of the store); nil removes the
    /// output.
    public let compute: @Sendable (_ get: (String) -> StoreValue?) -> StoreValue?
    /// When the result is written.
    public let policy: LiveExpressionPolicy
    /// The compiled expression of the declarative form; nil for a closure.
    public let expression: CompiledExpression?

    /// A closure-computed expression.
    public init(id: String, outputKeyPath: String, dependsOn: Set<String>,
                compute: @escaping @Sendable (_ get: (String) -> StoreValue?) -> StoreValue?,
                policy: LiveExpressionPolicy) {
        self.id = id
        self.outputKeyPath = outputKeyPath
        self.dependsOn = dependsOn
        self.compute = compute
        self.policy = policy
        self.expression = nil
    }

    /// An expression of the expression language, compiled now; its
    /// dependencies are the paths it reads.  The store evaluates it against
    /// its own values; an evaluation error leaves the output unchanged and
    /// is logged.
    ///
    /// - Throws: ``SDUIError`` `.exprParse` or `.limit` when it does not compile.
    public init(id: String, outputKeyPath: String, expression source: String,
                policy: LiveExpressionPolicy = .writeIfChanged) throws {
        let expr = try CompiledExpression(source)
        self.id = id
        self.outputKeyPath = outputKeyPath
        self.dependsOn = Set(expr.paths)
        self.compute = { _ in nil }   // never called: the store evaluates `expression`
        self.policy = policy
        self.expression = expr
    }

    /// Same id, output, dependencies, policy and expression source (closures
    /// cannot be compared).
    public static func == (a: LiveExpression, b: LiveExpression) -> Bool {
        a.id == b.id && a.outputKeyPath == b.outputKeyPath && a.dependsOn == b.dependsOn
            && a.policy == b.policy && a.expression?.source == b.expression?.source
    }
}
