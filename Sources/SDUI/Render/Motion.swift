// Motion.swift - a node's transitions, each with a reduced-motion form by
// construction.
//
// A token or block may give any node a `transition` prop: an object whose
// keys are the moments it animates, `appear`, `disappear` and `change`, and
// the state changes `loading`, `success`, `error`, `expanded`, `collapsed`
// and `focused`; each value is a motion:
//
//     {"type": "slide", "edge": "bottom", "duration": "@animation.standardTransition",
//      "easing": "easeOut"}
//     {"type": "scale", "spring": {"response": 0.4, "damping": 0.8}}
//     {"type": "fade", "duration": 200, "reduced": {"type": "none"}}
//
// `type` is `fade`, `slide` (with an `edge`: top, bottom, leading,
// trailing), `scale` or `none`.  Timing is a `duration` in milliseconds (a
// theme's animation name resolves to one) with an `easing` (linear,
// easeIn, easeOut, easeInOut), or a `spring` (response in seconds, damping
// ratio 0–1), whose duration is taken as its response.
//
// The reduced form.  Every motion carries one.  The author may give it
// (`reduced`); it must then be a fade of at most 150 ms or none: it may not
// move, scale or last longer (WCAG 2.3.3, and the platforms' reduce-motion
// settings).  Without one, the rule is: a fade keeps its easing and lasts
// min(duration, 150 ms); a slide or a scale becomes a cross-fade of
// min(duration, 150 ms); a spring becomes a 150 ms ease-out fade; none stays
// none.  So no reduced form ever moves or scales (a property test holds it).
//
// With `RenderContext.reduceMotion` the tree holds only the reduced forms:
// each motion is replaced by its reduced form, so a UI layer cannot play the
// full one by mistake.  A malformed transition is dropped with an issue
// naming the path (`props.transition.appear.edge`).
import Foundation
import SDUICore

/// One motion of a node's `transition` (see the file's essay).
public struct Motion: Sendable, Hashable {
    /// What moves.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Opacity only.
        case fade
        /// Moves in from (or out to) an edge.
        case slide
        /// Grows or shrinks.
        case scale
        /// No animation.
        case none
    }

    /// The edge a slide moves from.
    public enum Edge: String, Sendable, Hashable, CaseIterable {
        case top, bottom, leading, trailing
    }

    /// The easing curves a motion may name.
    public static let easings: Set<String> = ["linear", "easeIn", "easeOut", "easeInOut"]
    /// The moments a transition may animate.
    public static let moments = ["appear", "disappear", "change", "loading", "success", "error",
                                 "expanded", "collapsed", "focused"]
    /// The longest a reduced form may last, in milliseconds.
    public static let maxReducedMilliseconds = 150.0
    /// The longest any motion may last, in milliseconds.
    public static let maxMilliseconds = 5_000.0

    /// What moves.
    public var kind: Kind
    /// The edge of a slide.
    public var edge: Edge?
    /// How long it lasts, in milliseconds (a spring's response).
    public var milliseconds: Double
    /// The easing curve of a timed motion.
    public var easing: String?
    /// A spring's response (seconds) and damping ratio, instead of an easing.
    public var spring: (response: Double, damping: Double)?
    /// The form shown when motion is reduced; nil only on a reduced form itself.
    public indirect enum Reduced: Sendable, Hashable { case form(Motion) }
    var reducedForm: Reduced?

    /// The reduced-motion form: the author's, or the rule's.
    public var reduced: Motion {
        if case .form(let m)? = reducedForm { return m }
        return Self.reducedByRule(self)
    }

    /// Whether it moves or scales anything.
    public var moves: Bool { kind == .slide || kind == .scale }

    /// The rule's reduced form of `m` (the file's essay).
    public static func reducedByRule(_ m: Motion) -> Motion {
        switch m.kind {
        case .none:
            return Motion(kind: .none, milliseconds: 0)
        case .fade, .slide, .scale:
            if m.spring != nil { return Motion(kind: .fade, milliseconds: maxReducedMilliseconds, easing: "easeOut") }
            return Motion(kind: .fade, milliseconds: min(m.milliseconds, maxReducedMilliseconds), easing: m.easing ?? "easeOut")
        }
    }

    /// A motion from its parts.
    public init(kind: Kind, edge: Edge? = nil, milliseconds: Double, easing: String? = nil,
                spring: (response: Double, damping: Double)? = nil) {
        self.kind = kind
        self.edge = edge
        self.milliseconds = milliseconds
        self.easing = easing
        self.spring = spring
    }

    /// Hashable by value (the spring's tuple is not Hashable itself).
    public static func == (a: Motion, b: Motion) -> Bool {
        a.kind == b.kind && a.edge == b.edge && a.milliseconds == b.milliseconds && a.easing == b.easing
            && a.spring?.response == b.spring?.response && a.spring?.damping == b.spring?.damping
            && a.reducedForm == b.reducedForm
    }

    /// Hashes the same fields ``==`` compares.
    public func hash(into h: inout Hasher) {
        h.combine(kind)
        h.combine(edge)
        h.combine(milliseconds)
        h.combine(easing)
        h.combine(spring?.response)
        h.combine(spring?.damping)
        h.combine(reducedForm)
    }

    /// Reads a motion (theme references already resolved to numbers);
    /// `at` is the JSON path for errors.  A given `reduced` form must not
    /// move, scale or last over 150 ms.
    ///
    /// - Throws: `SDUIError` `.schema` naming the path of the first fault.
    public init(value: JSONValue, at path: String, isReduced: Bool = false) throws {
        func bad(_ sub: String, _ why: String) -> SDUIError { SDUIError(.schema, "\(path)\(sub): \(why)") }
        guard let o = value.objectValue else { throw bad("", "a motion is an object with a \"type\"") }
        for key in o.keys where !["type", "edge", "duration", "easing", "spring", "reduced"].contains(key) {
            throw bad(".\(key)", "unknown member (type, edge, duration, easing, spring, reduced)")
        }
        guard let t = o["type"]?.stringValue, let kind = Kind(rawValue: t) else {
            throw bad(".type", "one of fade, slide, scale, none")
        }
        self.kind = kind
        if let e = o["edge"] {
            guard kind == .slide, let s = e.stringValue, let edge = Edge(rawValue: s) else {
                throw bad(".edge", kind == .slide ? "one of top, bottom, leading, trailing" : "only a slide has an edge")
            }
            self.edge = edge
        } else {
            self.edge = kind == .slide ? .bottom : nil
        }
        if let s = o["spring"] {
            guard o["duration"] == nil, o["easing"] == nil else { throw bad(".spring", "a spring has no duration or easing") }
            guard let r = s["response"]?.doubleValue, r > 0, r <= Self.maxMilliseconds / 1000,
                  let d = s["damping"]?.doubleValue, d > 0, d <= 1 else {
                throw bad(".spring", "{\"response\": seconds (0, 5], \"damping\": (0, 1]}")
            }
            spring = (r, d)
            milliseconds = r * 1000
            easing = nil
        } else {
            spring = nil
            if let d = o["duration"] {
                guard let ms = d.doubleValue, ms >= 0, ms <= Self.maxMilliseconds else {
                    throw bad(".duration", "milliseconds from 0 to \(Int(Self.maxMilliseconds)), or an @animation name")
                }
                milliseconds = ms
            } else {
                milliseconds = kind == .none ? 0 : 300
            }
            if let e = o["easing"] {
                guard let s = e.stringValue, Self.easings.contains(s) else {
                    throw bad(".easing", "one of " + Self.easings.sorted().joined(separator: ", "))
                }
                easing = s
            } else {
                easing = kind == .none ? nil : "easeInOut"
            }
        }
        if let r = o["reduced"] {
            guard !isReduced else { throw bad(".reduced", "a reduced form has no reduced form") }
            let m = try Motion(value: r, at: path + ".reduced", isReduced: true)
            guard !m.moves else { throw bad(".reduced", "a reduced form may not move or scale: a fade or none") }
            guard m.milliseconds <= Self.maxReducedMilliseconds else {
                throw bad(".reduced", "a reduced form lasts at most \(Int(Self.maxReducedMilliseconds)) ms")
            }
            self.reducedForm = .form(m)
        } else {
            self.reducedForm = nil
        }
    }

    /// The motion as the render tree holds it, read back by
    /// ``init(value:at:isReduced:)`` to the same motion: every member
    /// explicit (a spring's time is its `response`), the reduced form
    /// included unless `withReduced` is false (a reduced form carries none).
    public func jsonValue(withReduced: Bool = true) -> JSONValue {
        // A spring's time is its response; a timed motion's is its duration.
        var o: [String: JSONValue] = ["type": .string(kind.rawValue)]
        if spring == nil { o["duration"] = .double(milliseconds) }
        if let edge { o["edge"] = .string(edge.rawValue) }
        if let easing { o["easing"] = .string(easing) }
        if let spring { o["spring"] = ["response": .double(spring.response), "damping": .double(spring.damping)] }
        if withReduced { o["reduced"] = reduced.jsonValue(withReduced: false) }
        return .object(o)
    }

    /// A node's `transition` prop checked and written out: each moment's
    /// motion with its reduced form, or, with `reduceMotion`, the reduced
    /// forms alone.
    ///
    /// - Throws: `SDUIError` `.schema` naming the path of the first fault.
    public static func transition(_ value: JSONValue, at path: String, reduceMotion: Bool) throws -> JSONValue {
        guard let o = value.objectValue else {
            throw SDUIError(.schema, "\(path): a transition is an object of moments (\(moments.joined(separator: ", ")))")
        }
        var out: [String: JSONValue] = [:]
        for (moment, v) in o.sorted(by: { $0.key < $1.key }) {
            guard moments.contains(moment) else {
                throw SDUIError(.schema, "\(path).\(moment): not a moment (\(moments.joined(separator: ", ")))")
            }
            let m = try Motion(value: v, at: "\(path).\(moment)")
            out[moment] = reduceMotion ? m.reduced.jsonValue(withReduced: false) : m.jsonValue()
        }
        return .object(out)
    }
}
