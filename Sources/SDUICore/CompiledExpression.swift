// CompiledExpression.swift - the expression language (docs/expressions.md), compiled
// and evaluated by the C core; Swift only supplies the data.
import Foundation
internal import CSDUI

/// A compiled expression: `cart.total > 0`, `sum(items[*].price)`.
///
/// The language, its types and its errors are the C core's, the same on
/// every platform (`docs/expressions.md`; `Tests/ExprVectors/` is the suite
/// every port passes).  Compile once, evaluate many times: evaluation reads
/// data from ``JSONDocument``s, one per root name (`cart` in `cart.total`),
/// and allocates nothing in Swift but the result.
///
/// Thread safety: a compiled program is read-only, so one `CompiledExpression` may be
/// evaluated from many threads at once (hence `@unchecked Sendable`).
public final class CompiledExpression: @unchecked Sendable, CustomStringConvertible {
    /// The owned C program; freed in `deinit`.
    private let program: OpaquePointer

    /// The source text, as given.
    public let source: String

    /// The paths the expression reads, in canonical form (`cart.total`,
    /// `items[*].price`, `answers['first name']`), deduplicated, in source
    /// order.  A path whose index is computed stops before that index.  A
    /// store uses them as the expression's dependencies.
    public let paths: [String]

    /// The distinct root names the paths start with (`cart` of
    /// `cart.total`), in source order: the top-level values the expression
    /// reads.  ``evaluate(roots:)`` looks each up once per call and answers
    /// the core's lookups without making Swift strings.
    public let rootNames: [String]

    /// The compiled `source`, from a process-wide cache of the most recent
    /// ``cacheCapacity`` expressions: what code that meets the same text
    /// again and again uses (an action's `set` expression or `if`
    /// condition is read when the action is, and run at every tap).  A
    /// source that does not compile is not kept; it throws as ``init(_:)``
    /// does.  Thread-safe.
    public static func cached(_ source: String) throws -> CompiledExpression {
        if let hit = cache.withLock({ $0[source] }) { return hit }
        let compiled = try CompiledExpression(source)
        cache.withLock { entries in
            // Bounded: when full, start again (no order is kept, so no
            // bookkeeping on a hit).
            if entries.count >= cacheCapacity { entries.removeAll(keepingCapacity: true) }
            entries[source] = compiled
        }
        return compiled
    }

    /// Most expressions ``cached(_:)`` keeps.
    public static let cacheCapacity = 512
    private static let cache = Locked<[String: CompiledExpression]>([:])

    /// Compiles `source`.
    ///
    /// - Throws: ``SDUIError`` `.exprParse` with the byte `offset` (and line
    ///   and column) of the fault, `.limit` past the source, nesting or
    ///   depth bounds.  The error's `input` is the expression.
    public init(_ source: String) throws {
        var err = sdui_error()
        var prog: OpaquePointer?
        var text = source
        let status = text.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { bytes in
                guard let base = bytes.baseAddress else { return sdui_expr_compile("", 0, &prog, &err) }
                return sdui_expr_compile(base, bytes.count, &prog, &err)
            }
        }
        try SDUIError.check(status, err, input: Self.inputName(source))
        self.program = prog!
        self.source = source
        self.paths = (0..<sdui_expr_path_count(prog)).map { i in
            var len = 0
            return String(cBytes: sdui_expr_path(prog, i, &len), count: len)
        }
        var names: [String] = []
        for text in paths {
            guard let path = try? KeyPath(text), case .key(let name) = path.components[0],
                  !names.contains(name) else { continue }
            names.append(name)
        }
        self.rootNames = names
    }

    deinit { sdui_expr_free(program) }

    /// The source text.
    public var description: String { source }

    /// Evaluates with the members of `data`'s top-level object as the roots
    /// (`cart` reads `data.cart`); when `data` is not an object every root
    /// is absent, so every path reads null.
    ///
    /// - Throws: ``SDUIError`` with an expression category (`.exprType`,
    ///   `.exprOverflow`, `.exprDivision`, `.exprValue`) or `.limit`, the
    ///   byte offset of the failing sub-expression, and a message naming it.
    public func evaluate(_ data: JSONDocument) throws -> JSONValue {
        try withExtendedLifetime(data) {
            try run { name in data.member(name) }
        }
    }

    /// Evaluates with `roots` naming the data: `cart.total` reads
    /// `roots["cart"]`'s member `total`; a root not in the dictionary is
    /// absent (null).
    public func evaluate(roots: [String: JSONDocument]) throws -> JSONValue {
        let values = rootNames.map { roots[$0]?.root }
        let names = rootNames
        return try withExtendedLifetime(roots) {
            try run { name in
                for i in names.indices where names[i].withCString({ strcmp($0, name) }) == 0 { return values[i] }
                return nil
            }
        }
    }

    /// Evaluates against scenario data: each root the expression reads is
    /// `data`'s document of that name (absent, so null, when it has none).
    ///
    /// - Throws: as ``evaluate(roots:)``, and what `data` throws building a
    ///   document.
    public func evaluate(in data: any ScenarioData) throws -> JSONValue {
        var roots: [String: JSONDocument] = [:]
        for name in rootNames { roots[name] = try data.document(root: name) }
        return try evaluate(roots: roots)
    }

    /// Evaluates and renders the result as JSON text by the core's rule:
    /// integers without a decimal point, decimals in the shortest form that
    /// reads back to the same double (`2.0`, `0.1`, `1e21`), object members
    /// in order.
    public func evaluateJSON(_ data: JSONDocument) throws -> String {
        try withExtendedLifetime(data) {
            let box = LookupBox { name in data.member(name) }
            var err = sdui_error()
            var text: UnsafeMutablePointer<CChar>?
            var len = 0
            let status = sdui_expr_eval_json(program, LookupBox.callback,
                                             Unmanaged.passUnretained(box).toOpaque(),
                                             &text, &len, &err)
            try SDUIError.check(status, err, input: Self.inputName(source))
            defer { sdui_free(text) }
            return String(cBytes: text, count: len)
        }
    }

    /// Evaluates with `lookup` resolving root names to borrowed C values,
    /// which the caller keeps alive for the call.
    private func run(_ lookup: @escaping (UnsafePointer<CChar>) -> OpaquePointer?) throws -> JSONValue {
        let box = LookupBox(lookup)
        var err = sdui_error()
        var result: OpaquePointer?
        let status = withExtendedLifetime(box) {
            sdui_expr_eval(program, LookupBox.callback, Unmanaged.passUnretained(box).toOpaque(),
                           &result, &err)
        }
        try SDUIError.check(status, err, input: Self.inputName(source))
        defer { sdui_json_doc_free(result) }
        return JSONValue(sdui_json_doc_root(result))
    }

    /// How errors name the expression: its text, shortened past 80 characters.
    static func inputName(_ source: String) -> String {
        source.count <= 80 ? "expression '\(source)'" : "expression '\(source.prefix(77))...'"
    }
}

/// The Swift side of the core's lookup callback: a closure from root name
/// to a borrowed C value, passed to C as the callback's context.
private final class LookupBox {
    let lookup: (UnsafePointer<CChar>) -> OpaquePointer?

    init(_ lookup: @escaping (UnsafePointer<CChar>) -> OpaquePointer?) {
        self.lookup = lookup
    }

    /// The C callback: `ctx` is an unretained `LookupBox` kept alive by the
    /// evaluating call.
    static let callback: sdui_expr_lookup = { ctx, name, _ in
        guard let ctx, let name else { return nil }
        let box = Unmanaged<LookupBox>.fromOpaque(ctx).takeUnretainedValue()
        return box.lookup(name)
    }
}
