// JSONDocument.swift - a JSON value held in the C core's own value tree, for
// the parts of the core that read values (the expression evaluator, the
// snapshot file) without a round trip through text.
import Foundation
internal import CSDUI

/// An immutable JSON value stored in the C core's value tree.
///
/// ``JSONValue`` is the Swift model; a `JSONDocument` is the same value in the
/// form the core reads.  Build one from a ``JSONValue`` (the core's builder
/// makes the tree directly, no JSON text in between) or parse one from JSON
/// text, then hand it to ``CompiledExpression/evaluate(_:)`` as often as needed:
/// the conversion is paid once, not per evaluation.
///
/// Thread safety: the tree is never changed after `init`, and the core's
/// readers only read it, so a document may be used from any number of
/// threads at once (hence `@unchecked Sendable`).
public final class JSONDocument: @unchecked Sendable {
    /// The owned C document; freed in `deinit`.
    package let handle: OpaquePointer

    /// The document's top-level value, borrowed from `handle`.
    package var root: OpaquePointer? { sdui_json_doc_root(handle) }

    /// Takes ownership of a C document.
    package init(adopting handle: OpaquePointer) {
        self.handle = handle
    }

    /// Builds the core's tree for `value`.
    ///
    /// - Throws: ``SDUIError`` `.limit` when `value` nests deeper than the
    ///   core's bound (128 levels), `.argument` for a value the tree cannot
    ///   hold (a non-finite double, a member name with a NUL), `.oom`.
    public convenience init(_ value: JSONValue) throws {
        var err = sdui_error()
        var builder: OpaquePointer?
        try SDUIError.check(sdui_json_builder_open(&builder, &err), err, input: "JSON value")
        defer { sdui_json_builder_free(builder) }
        Self.push(value, into: builder)
        var doc: OpaquePointer?
        try SDUIError.check(sdui_json_builder_finish(builder, &doc, &err), err, input: "JSON value")
        self.init(adopting: doc!)
    }

    /// Parses JSON text (any value at the top level) with the core's parser;
    /// errors name `source` and the line, column and byte of the fault.
    public convenience init(json: Data, source: String? = nil,
                            maxDepth: Int = JSONValue.defaultMaxDepth) throws {
        var err = sdui_error()
        var doc: OpaquePointer?
        let status = json.withUnsafeBytes { raw in
            sdui_json_doc_parse(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count,
                                UInt32(clamping: max(0, maxDepth)), &doc, &err)
        }
        try SDUIError.check(status, err, input: source)
        self.init(adopting: doc!)
    }

    deinit { sdui_json_doc_free(handle) }

    /// The value as the Swift model (a fresh copy each time).
    public var value: JSONValue { JSONValue(root) }

    /// The member `name` of the top-level object, borrowed from this
    /// document; nil when the top level is not an object or has no such
    /// member.
    func member(_ name: UnsafePointer<CChar>) -> OpaquePointer? {
        guard let root, sdui_value_type_of(root) == SDUI_VALUE_OBJECT else { return nil }
        return sdui_value_get(root, name)
    }

    /// Feeds `value` to the builder, depth first.  The builder keeps the
    /// first error and ``init(_:)`` reports it at `finish`, so the calls'
    /// statuses need no check here.
    private static func push(_ value: JSONValue, into b: OpaquePointer?) {
        switch value {
        case .null: sdui_json_builder_null(b)
        case .bool(let v): sdui_json_builder_bool(b, v ? 1 : 0)
        case .int(let v): sdui_json_builder_int(b, v)
        case .double(let v): sdui_json_builder_real(b, v)
        case .string(let s): withBytes(s) { sdui_json_builder_string(b, $0, $1) }
        case .array(let items):
            sdui_json_builder_begin_array(b)
            for item in items { push(item, into: b) }
            sdui_json_builder_end_array(b)
        case .object(let members):
            sdui_json_builder_begin_object(b)
            for (key, item) in members {
                withBytes(key) { sdui_json_builder_key(b, $0, $1) }
                push(item, into: b)
            }
            sdui_json_builder_end_object(b)
        }
    }

    /// Calls `body` with the UTF-8 bytes of `s` and their count.
    @discardableResult
    private static func withBytes<R>(_ s: String, _ body: (UnsafePointer<CChar>?, Int) -> R) -> R {
        var s = s
        return s.withUTF8 { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { body($0.baseAddress, $0.count) }
        }
    }
}
