// JSONValue+C.swift - JSON values read from the C core's value trees (tokens, documents).
import Foundation
internal import CSDUI

extension JSONValue {
    /// Converts a C value (borrowed from a live token or document) into a
    /// Swift value.
    package init(_ v: OpaquePointer?) {
        switch sdui_value_type_of(v) {
        case SDUI_VALUE_BOOL:
            self = .bool(sdui_value_bool(v) != 0)
        case SDUI_VALUE_INT:
            self = .int(sdui_value_int(v))
        case SDUI_VALUE_REAL:
            self = .double(sdui_value_real(v))
        case SDUI_VALUE_STRING:
            var len = 0
            let p = sdui_value_string(v, &len)
            self = .string(String(cBytes: p, count: len))
        case SDUI_VALUE_ARRAY:
            let n = sdui_value_count(v)
            self = .array((0..<n).map { JSONValue(sdui_value_at(v, $0)) })
        case SDUI_VALUE_OBJECT:
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(sdui_value_count(v))
            var it = sdui_value_next(v, nil)
            while let cur = it {
                var len = 0
                let key = String(cBytes: sdui_value_iter_key(cur, &len), count: len)
                members[key] = JSONValue(sdui_value_iter_value(cur))
                it = sdui_value_next(v, cur)
            }
            self = .object(members)
        default:
            self = .null
        }
    }
}

extension JSONValue {
    /// The nesting bound of ``init(json:source:maxDepth:)`` unless one is
    /// given: the core's default (limits.h), 128 levels.
    public static let defaultMaxDepth = 128

    /// Parses JSON text (any value at the top level) into the one value
    /// model, with the C core's parser: faults are reported with their line,
    /// column and byte, nesting deeper than `maxDepth` is a `.limit` error,
    /// and an object that repeats a member name keeps the last one.  Errors
    /// name `source`.
    public init(json: Data, source: String? = nil, maxDepth: Int = JSONValue.defaultMaxDepth) throws {
        self = try JSONDocument(json: json, source: source, maxDepth: maxDepth).value
    }
}
