// JSONValue+Numbers.swift - the one rule for numbers as text and as JSON.
import Foundation
internal import CSDUI

extension JSONValue {
    /// A double as text, by the one rule every module uses (bindings,
    /// themes, lint messages, the HTML preview): a whole number below 2^53
    /// in magnitude (where doubles hold every integer) as plain digits (`16`,
    /// not `16.0`); any other value by the C core's rule (`sdui/number.h`,
    /// the one the expression language's `string()` uses): the shortest
    /// form that reads back as the same double, positional for exponents
    /// from -6 to 20 (`0.1`, `0.000001`), else `1.5e-7`, `1e21`; non-finite
    /// values as `nan`, `inf`, `-inf`.
    public static func text(_ d: Double) -> String {
        if d.rounded() == d, abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(SDUI_NUMBER_TEXT_MAX)) { buf in
            String(cBytes: buf.baseAddress, count: sdui_number_text(d, buf.baseAddress))
        }
    }

    /// A scalar as text: an integer's digits, a double by ``text(_:)-swift.type.method``,
    /// a boolean as `true`/`false`, a string as it is; nil for null, lists
    /// and objects.
    public var scalarText: String? {
        switch self {
        case .int(let n): return String(n)
        case .double(let d): return Self.text(d)
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return s
        case .null, .array, .object: return nil
        }
    }

    /// A computed number as JSON: whole values below 2^53 as `.int`, so
    /// JSON shows `16`, not `16.0`; others as `.double`.
    public static func number(_ d: Double) -> JSONValue {
        d.rounded() == d && abs(d) < 9_007_199_254_740_992 ? .int(Int64(d)) : .double(d)
    }
}
