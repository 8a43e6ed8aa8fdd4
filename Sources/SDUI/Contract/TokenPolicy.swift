// TokenPolicy.swift - the checks a token passes before it is stored anywhere.
import Foundation
import SDUICore

/// What a token must pass before the repository caches it, the importer
/// publishes it or the pack planner packs it, in this order: its size (the
/// JSON text at most `limits.maxTokenBytes`), its schema (the C core's parse
/// and checks, under `limits`), then its image URLs (when an
/// ``ImageURLPolicy`` is set).  One rule for every place a token comes in.
public struct TokenPolicy: Sendable {
    /// The size and depth limits a token's JSON must keep to.
    public var limits: PackLimits
    /// The image URL policy; nil checks no URL.
    public var imagePolicy: ImageURLPolicy?

    /// - Parameters:
    ///   - limits: the size and depth limits (the defaults of packs).
    ///   - imagePolicy: the image URL policy; nil checks no URL.
    public init(limits: PackLimits = .default, imagePolicy: ImageURLPolicy? = nil) {
        self.limits = limits
        self.imagePolicy = imagePolicy
    }

    /// The rule a token broke.
    public enum Rule: String, Sendable {
        case size, schema
        case imageURL = "image-url"
    }

    /// Why a token was refused: the first rule it broke, the error, and for
    /// image URLs every violation.
    public struct Refusal: Error, Sendable {
        /// The first rule the token broke.
        public var rule: Rule
        /// The error to report: `.limit` for size, the parse's own category for
        /// schema, `.schema` listing the violations for image URLs.
        public var error: SDUIError
        /// Every image URL violation found (empty unless `rule` is `.imageURL`).
        public var violations: [ImageURLPolicy.Violation]
    }

    /// The token of `json` when it passes every rule; otherwise the
    /// ``Refusal`` of the first rule it breaks.  `source` names the input in
    /// errors.  (A `Result`, not typed throws: the typed form crashed a
    /// caller under Swift 6.3.)
    public func admit(_ json: Data, source: String) -> Result<DesignToken, Refusal> {
        guard json.count <= limits.maxTokenBytes else {
            return .failure(Refusal(rule: .size, error: SDUIError(.limit, "token JSON is \(json.count) bytes; the limit is "
                                                        + "\(limits.maxTokenBytes)", input: source), violations: []))
        }
        let token: DesignToken
        do {
            token = try DesignToken(json: json, source: source, limits: limits)
        } catch let e as SDUIError {
            return .failure(Refusal(rule: .schema, error: e, violations: []))
        } catch {
            return .failure(Refusal(rule: .schema, error: SDUIError(.unknown, "\(error)", input: source), violations: []))
        }
        if let imagePolicy {
            let found = imagePolicy.violations(in: token)
            if !found.isEmpty {
                do { try imagePolicy.validate(token) } catch let e as SDUIError {
                    return .failure(Refusal(rule: .imageURL, error: e, violations: found))
                } catch {}
            }
        }
        return .success(token)
    }
}
