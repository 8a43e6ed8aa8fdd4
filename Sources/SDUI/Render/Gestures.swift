// Gestures.swift - a node's gestures, with the theme's settings filled in.
//
// A token may give a node a `gestures` prop, when its primitive's row takes
// them (PrimitiveSpec.gestures: a Column or Row takes swipes and long
// presses, an image long presses and pinches, a Text or Button long presses):
//
//     "gestures": {
//       "swipe": {"direction": "left", "action": {"type": "navigate", "to": "next"}},
//       "longPress": {"action": "share"},
//       "pinch": {"max": 4}
//     }
//
// The resolver writes each one out whole, every setting the author left out
// taken from the theme's gesture group (`@gesture.swipeThreshold` 50 pt,
// `swipeVelocity` 500 pt/s, `longPressDuration` 500 ms, `pinchMin` 0.5,
// `pinchMax` 3 in the SDK's theme), so a UI layer recognises the gesture
// with the same settings on every platform.  A swipe and a long press carry
// the action they run (ScreenSession.swipe and longPress run it); a pinch
// zooms.  A gesture the row does not take, or a setting out of range, drops
// the `gestures` prop with an issue naming the path.
import Foundation
import SDUICore

/// Reading a node's `gestures` prop (see the file's essay).
public enum Gestures {
    /// The gestures a node may take.
    public static let kinds = ["swipe", "longPress", "pinch"]
    /// A swipe's directions.
    public static let directions = ["left", "right", "up", "down"]

    /// `value` checked and written out whole, settings from `setting` (a
    /// theme gesture value by name) where the author gave none.
    ///
    /// - Throws: `SDUIError` `.schema` naming the path of the first fault.
    static func resolve(_ value: JSONValue, at path: String, primitive: String, accepts: Set<String>,
                        setting: (String) -> Double?) throws -> JSONValue {
        func bad(_ sub: String, _ why: String) -> SDUIError { SDUIError(.schema, "\(path)\(sub): \(why)") }
        guard let o = value.objectValue else { throw bad("", "an object of gestures (swipe, longPress, pinch)") }
        var out: [String: JSONValue] = [:]
        /// A number member within `range`, else the theme's `name`.
        func number(_ g: [String: JSONValue], _ key: String, _ sub: String, _ name: String,
                    _ range: ClosedRange<Double>) throws -> Double {
            if let v = g[key] {
                guard let d = v.doubleValue, range.contains(d) else {
                    throw bad("\(sub).\(key)", "a number from \(JSONValue.text(range.lowerBound)) to \(JSONValue.text(range.upperBound))")
                }
                return d
            }
            guard let d = setting(name), range.contains(d) else {
                throw bad("\(sub).\(key)", "no value, and the theme's @gesture.\(name) is missing or out of range")
            }
            return d
        }
        for (kind, v) in o.sorted(by: { $0.key < $1.key }) {
            let sub = ".\(kind)"
            guard kinds.contains(kind) else { throw bad(sub, "not a gesture (swipe, longPress, pinch)") }
            guard accepts.contains(kind) else {
                throw bad(sub, "\(primitive) does not take \(kind)" + (accepts.isEmpty ? " (it takes no gestures)"
                                                                         : " (it takes \(accepts.sorted().joined(separator: ", ")))"))
            }
            guard let g = v.objectValue else { throw bad(sub, "must be an object") }
            let allowed: Set<String> = kind == "swipe" ? ["direction", "threshold", "velocity", "action"]
                : kind == "longPress" ? ["duration", "action"] : ["min", "max"]
            if let extra = g.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw bad("\(sub).\(extra)", "unknown member (\(allowed.sorted().joined(separator: ", ")))")
            }
            var w: [String: JSONValue] = [:]
            switch kind {
            case "swipe":
                guard let d = g["direction"]?.stringValue, directions.contains(d) else {
                    throw bad("\(sub).direction", "one of " + directions.joined(separator: ", "))
                }
                w["direction"] = .string(d)
                w["threshold"] = .double(try number(g, "threshold", sub, "swipeThreshold", 1...1_000))
                w["velocity"] = .double(try number(g, "velocity", sub, "swipeVelocity", 1...10_000))
            case "longPress":
                w["duration"] = .double(try number(g, "duration", sub, "longPressDuration", 100...5_000))
            default:
                let lo = try number(g, "min", sub, "pinchMin", 0.1...1)
                let hi = try number(g, "max", sub, "pinchMax", 1...10)
                w["min"] = .double(lo)
                w["max"] = .double(hi)
            }
            if kind != "pinch" {
                guard let action = g["action"], action != .null else { throw bad("\(sub).action", "a \(kind) needs the action it runs") }
                w["action"] = action
            }
            out[kind] = .object(w)
        }
        return .object(out)
    }
}
