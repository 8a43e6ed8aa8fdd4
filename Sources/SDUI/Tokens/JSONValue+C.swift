// JSONValue+C.swift - JSON values read from the C core's parsed tokens.
internal import CSDUI
import SDUICore

extension JSONValue {
    /// Converts a C value (borrowed from a live token) into a Swift value.
    init(_ v: OpaquePointer?) {
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
