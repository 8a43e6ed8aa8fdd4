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

    /// The distinct root names the expression reads (`cart` of
    /// `cart.total`), in the order they first appear: the top-level values
    /// it needs.  The core numbered them when it compiled the expression,
    /// so ``evaluate(slots:)`` and ``isTrue(slots:)`` take the values in
    /// this order, one array, and look nothing up by name.
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
        self.rootNames = (0..<sdui_expr_root_count(prog)).map { i in
            var len = 0
            return String(cBytes: sdui_expr_root(prog, i, &len), count: len)
        }
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
            try withSlots(rootNames.map { data.member($0) }) { roots, n in
                try tree { sdui_expr_eval_roots(program, roots, n, &$0, &$1) }
            }
        }
    }

    /// Evaluates with `roots` naming the data: `cart.total` reads
    /// `roots["cart"]`'s member `total`; a root not in the dictionary is
    /// absent (null).
    public func evaluate(roots: [String: JSONDocument]) throws -> JSONValue {
        try evaluate(slots: rootNames.map { roots[$0] })
    }

    /// Evaluates with the data given by slot: `slots[k]` is the value of
    /// ``rootNames``[k] (nil, or past the end: absent, so null).  What code
    /// that runs one expression many times uses: it finds the documents
    /// once, and each call hands them to the core in one array.
    public func evaluate(slots: [JSONDocument?]) throws -> JSONValue {
        try withExtendedLifetime(slots) {
            try withSlots(slots.map { $0?.root }) { roots, n in
                try tree { sdui_expr_eval_roots(program, roots, n, &$0, &$1) }
            }
        }
    }

    /// Evaluates against scenario data: each root the expression reads is
    /// `data`'s document of that name (absent, so null, when it has none).
    ///
    /// - Throws: as ``evaluate(roots:)``, and what `data` throws building a
    ///   document.
    public func evaluate(in data: any ScenarioData) throws -> JSONValue {
        try evaluate(slots: slots(in: data))
    }

    /// Whether the condition holds, with the data given by slot as
    /// ``evaluate(slots:)`` takes it.  The core builds no result and, for a
    /// typical condition, allocates nothing: the test for `when`, `if`
    /// and every condition run again and again.
    ///
    /// - Throws: as ``evaluate(roots:)``; `.exprType` ("a condition gave a
    ///   string, not a boolean") when the value is not a boolean.
    public func isTrue(slots: [JSONDocument?]) throws -> Bool {
        try withExtendedLifetime(slots) {
            let count = slots.count
            return try withUnsafeTemporaryAllocation(of: OpaquePointer?.self, capacity: max(count, 1)) { buffer in
                for i in 0..<count { buffer[i] = slots[i]?.root }
                return try truth(buffer.baseAddress, count)
            }
        }
    }

    /// Whether the condition holds in `roots` (by name, as
    /// ``evaluate(roots:)`` reads them).
    public func isTrue(roots: [String: JSONDocument]) throws -> Bool {
        try isTrue(slots: rootNames.map { roots[$0] })
    }

    /// Whether the condition holds in scenario data (as
    /// ``evaluate(in:)`` reads it).
    public func isTrue(in data: any ScenarioData) throws -> Bool {
        try isTrue(slots: slots(in: data))
    }

    /// `data`'s document of each root name, by slot.
    private func slots(in data: any ScenarioData) throws -> [JSONDocument?] {
        try rootNames.map { try data.document(root: $0) }
    }

    /// Runs `body` with `values` as the core's array of borrowed roots (the
    /// array's own storage); the caller keeps their documents alive.
    private func withSlots<R>(_ values: [OpaquePointer?],
                              _ body: (UnsafePointer<OpaquePointer?>?, Int) throws -> R) rethrows -> R {
        try values.withUnsafeBufferPointer { try body($0.baseAddress, $0.count) }
    }

    /// The core's condition call over `count` roots at `roots`.
    private func truth(_ roots: UnsafePointer<OpaquePointer?>?, _ count: Int) throws -> Bool {
        var truth: Int32 = 0
        var err = sdui_error()
        let status = sdui_expr_eval_bool(program, count > 0 ? roots : nil, count, &truth, &err)
        try SDUIError.check(status, err, input: Self.inputName(source))
        return truth != 0
    }

    /// The value of one of the core's tree-making calls, which fills in
    /// the result document and the error record.
    private func tree(_ call: (inout OpaquePointer?, inout sdui_error) -> sdui_status) throws -> JSONValue {
        var err = sdui_error()
        var result: OpaquePointer?
        let status = call(&result, &err)
        try SDUIError.check(status, err, input: Self.inputName(source))
        defer { sdui_json_doc_free(result) }
        return JSONValue(sdui_json_doc_root(result))
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
