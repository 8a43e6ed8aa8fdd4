// ExperimentAssigner.swift - which variation of an experiment a user gets:
// the C core's assignment (sdui_experiment_run), the audience evaluated in
// the project's expression language, and the user's attributes read as the
// specification reads them.
internal import CSDUI
import Foundation
import SDUICore

/// What an assignment decided for one user.
public struct ExperimentAssignment: Sendable, Hashable {
    /// Why the user is or is not in the experiment.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case enrolled
        case tooFewVariations = "too_few_variations"
        case inactive
        case noHashValue = "no_hash_value"
        case filtered
        case namespace
        case audience
        case unknownHashVersion = "unknown_hash_version"
        case coverage
    }

    /// Whether the user is enrolled.
    public var inExperiment: Bool
    /// The variation's index (0, control, when not enrolled).
    public var variationIndex: Int
    /// The variation's id.
    public var variationID: String
    /// Whether the hash chose the variation.
    public var hashUsed: Bool
    /// The user's hash, in [0, 1), when it was used.
    public var bucket: Double?
    /// The attribute the user was hashed by (the fallback when it was used).
    public var hashAttribute: String
    /// That attribute's value as hashed, when there was one.
    public var hashValue: String?
    /// Why.
    public var reason: Reason
    /// Why the user's app cannot render the variation assigned, when it
    /// cannot: the user is shown control and counted apart, never moved
    /// to another variation (``ExperimentAssigner/assign(_:app:catalog:)``).
    public var ineligibility: String?

    /// Whether the user is enrolled and can be shown the variation.
    public var isEligible: Bool { ineligibility == nil }
    /// The variation shown: the one assigned, or control when the app
    /// cannot render it.
    public var shownVariationIndex: Int { ineligibility == nil ? variationIndex : 0 }
}

/// Assigns users to one experiment; built once, used for many users.
///
/// Thread-safe: immutable after init (the compiled audience is evaluated
/// without shared state), hence `Sendable`.
public final class ExperimentAssigner: Sendable {
    /// The experiment.
    public let experiment: Experiment
    private let audience: CompiledExpression?
    /// The weights as the core reads them.
    private let weights: [Double]?
    /// The experiment's texts the core reads, in one buffer: key, seed,
    /// namespace id, hash attribute, fallback attribute.
    private let fixed: [UInt8]
    /// Where each of them is in ``fixed`` (offset, length).
    private let spans: (key: (Int, Int), seed: (Int, Int), namespace: (Int, Int), attribute: (Int, Int),
                        fallback: (Int, Int))

    /// An assigner of `experiment`.
    ///
    /// - Throws: `SDUIError` when the audience does not compile.
    public init(_ experiment: Experiment) throws {
        self.experiment = experiment
        audience = try experiment.audience.map { try CompiledExpression($0) }
        weights = experiment.weights
        var bytes: [UInt8] = []
        func add(_ text: String) -> (Int, Int) {
            defer { bytes += text.utf8 }
            return (bytes.count, text.utf8.count)
        }
        spans = (add(experiment.key), add(experiment.seed ?? ""), add(experiment.namespace?.id ?? ""),
                 add(experiment.hashAttribute), add(experiment.fallbackAttribute ?? ""))
        fixed = bytes
    }

    /// The hash the specification defines (`sdui_experiment_hash`): a
    /// number in [0, 1) for versions 1 and 2, nil for any other.
    public static func hash(seed: String, value: String, version: Int) -> Double? {
        var seed = seed, value = value
        let h = seed.withUTF8 { s in
            value.withUTF8 { v in
                sdui_experiment_hash(s.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                     s.count, v.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                     v.count, Int32(clamping: version))
            }
        }
        return h < 0 ? nil : h
    }

    /// An attribute's value as the hash reads it: a non-empty string as it
    /// is, a non-zero number by the one number-to-text rule, true as
    /// "true"; nil for what the specification treats as missing (empty,
    /// 0, false, null) and for lists and objects.
    public static func hashText(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)? where !s.isEmpty: return s
        case .int(let i)? where i != 0: return String(i)
        case .double(let d)? where d != 0 && d.isFinite: return JSONValue.text(d)
        case .bool(true)?: return "true"
        default: return nil
        }
    }

    /// Whether `attributes` pass the audience (no audience: yes).  An
    /// audience that fails to evaluate (a type error) does not pass.
    public func audiencePasses(_ attributes: [String: JSONValue]) -> Bool {
        guard let audience else { return true }
        do {
            var roots: [String: JSONDocument] = [:]
            for name in audience.rootNames {
                if let v = attributes[name] { roots[name] = try JSONDocument(v) }
            }
            return try audience.isTrue(roots: roots)
        } catch {
            return false
        }
    }

    /// The assignment of the user with `attributes`.
    public func assign(_ attributes: [String: JSONValue]) -> ExperimentAssignment {
        assign(hashValue: Self.hashText(attributes[experiment.hashAttribute]),
               fallbackValue: experiment.fallbackAttribute.flatMap { Self.hashText(attributes[$0]) },
               audiencePasses: audiencePasses(attributes))
    }

    /// The assignment of the user with `attributes` on an app whose
    /// `X-Primitives` are `primitives`: enrolled in a variation the app
    /// cannot render (a token of it needs a primitive or version the app
    /// lacks), the user keeps that assignment, marked ineligible with the
    /// reason, and is shown control.
    public func assign(_ attributes: [String: JSONValue], app primitives: PrimitiveMap,
                       catalog: ExperimentCatalog) -> ExperimentAssignment {
        var a = assign(attributes)
        if a.inExperiment, a.variationIndex != 0 {
            a.ineligibility = catalog.ineligibility(of: experiment.variations[a.variationIndex], for: primitives)
        }
        return a
    }

    /// The assignment of a user whose hash attribute reads `hashValue` (and
    /// fallback attribute `fallbackValue`), the audience's verdict given.
    public func assign(hashValue: String?, fallbackValue: String? = nil, audiencePasses: Bool = true) -> ExperimentAssignment {
        var value = hashValue ?? "", fallback = fallbackValue ?? ""
        var result = sdui_experiment_result()
        let status: sdui_status = fixed.withUnsafeBufferPointer { raw in
            value.withUTF8 { v in
                fallback.withUTF8 { f in
                    run(raw, v, f, audiencePasses, &result)
                }
            }
        }
        // Every pointer is given with its count: the core cannot refuse them.
        assert(status == SDUI_OK)
        let e = experiment
        let usedFallback = e.fallbackAttribute != nil && hashValue == nil && fallbackValue != nil && result.hash_value_len > 0
        let index = Int(result.variation)
        return ExperimentAssignment(
            inExperiment: result.in_experiment != 0, variationIndex: index, variationID: e.variations[index].id,
            hashUsed: result.hash_used != 0, bucket: result.hash_used != 0 ? result.bucket : nil,
            hashAttribute: usedFallback ? e.fallbackAttribute! : e.hashAttribute,
            hashValue: usedFallback ? fallbackValue : hashValue,
            reason: Self.reasons[Int(result.reason.rawValue)], ineligibility: nil)
    }

    /// The core's reasons, by their value.
    private static let reasons: [ExperimentAssignment.Reason] = (0..<9).map {
        ExperimentAssignment.Reason(rawValue: String(cString: sdui_experiment_reason_name(sdui_experiment_reason(rawValue: $0))))
            ?? .coverage
    }

    /// One run of the core over the experiment's texts (`raw`, laid out by
    /// ``spans``) and the user's two values.
    private func run(_ raw: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>,
                     _ fallback: UnsafeBufferPointer<UInt8>, _ audiencePasses: Bool,
                     _ result: inout sdui_experiment_result) -> sdui_status {
        let e = experiment
        let none = UnsafeRawPointer(bitPattern: 1)!.assumingMemoryBound(to: CChar.self)
        func text(_ b: UnsafeBufferPointer<UInt8>) -> UnsafePointer<CChar> {
            b.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) } ?? none
        }
        let base = text(raw)
        var x = sdui_experiment()
        x.key = base + spans.key.0
        x.key_len = spans.key.1
        x.variation_count = e.variations.count
        x.seed = base + spans.seed.0
        x.seed_len = spans.seed.1
        x.hash_version = Int32(e.hashVersion)
        if e.coverage != 1 {
            x.has_coverage = 1
            x.coverage = e.coverage
        }
        if let ns = e.namespace {
            x.has_namespace = 1
            x.namespace_id = base + spans.namespace.0
            x.namespace_len = spans.namespace.1
            x.namespace_start = ns.start
            x.namespace_end = ns.end
        }
        x.inactive = e.status == .running ? 0 : 1
        x.hash_attribute = base + spans.attribute.0
        x.hash_attribute_len = spans.attribute.1
        var attrs = (sdui_experiment_attr(name: base + spans.attribute.0, name_len: spans.attribute.1,
                                          value: text(value), value_len: value.count),
                     sdui_experiment_attr(name: base + spans.fallback.0, name_len: spans.fallback.1,
                                          value: text(fallback), value_len: fallback.count))
        var count = 1
        if e.fallbackAttribute != nil {
            x.fallback_attribute = base + spans.fallback.0
            x.fallback_attribute_len = spans.fallback.1
            count = 2
        }
        var err = sdui_error()
        return withUnsafeMutableBytes(of: &attrs) { a in
            let list = a.baseAddress!.assumingMemoryBound(to: sdui_experiment_attr.self)
            guard let weights else { return sdui_experiment_run(&x, list, count, audiencePasses ? 1 : 0, &result, &err) }
            return weights.withUnsafeBufferPointer { w in
                x.weights = w.baseAddress
                x.weight_count = w.count
                return sdui_experiment_run(&x, list, count, audiencePasses ? 1 : 0, &result, &err)
            }
        }
    }
}
