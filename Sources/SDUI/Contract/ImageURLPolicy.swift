// ImageURLPolicy.swift - image URLs must be HTTPS on the configured CDN.
import Foundation
import SDUICore

/// Which image URLs a client may load: HTTPS only, on the configured CDN
/// host(s) only.
///
/// Foundation's `URLComponents` parses; the policy then checks what it
/// returned, plus a few things on the raw text that parsing would hide.
/// A URL is accepted only when all of these hold:
/// - it is ASCII with no control character, space or backslash;
/// - its scheme is `https` (in any case); `http:`, `data:`, `javascript:`
///   and scheme-less or protocol-relative (`//host/…`) URLs are refused;
/// - it has no userinfo (`user:pw@`, or `cdn.example.com@evil.net`);
/// - its host is a literal DNS name: not empty, not percent-encoded, not an
///   IP literal (IPv6 in brackets, or a numeric last label as in `127.1`),
///   no trailing dot, no IDN (`xn--` labels, or any non-ASCII), labels of
///   letters, digits and inner hyphens;
/// - it has no explicit port, or exactly `:443` (the HTTPS port itself);
///   every other port, and an empty one (`host:/`), is refused;
/// - its host, lowercased, is on the allow-list: equal to an entry, or for
///   an entry written `*.cdn.example.com`, a subdomain of any depth of
///   `cdn.example.com` (not `cdn.example.com` itself, which needs its own
///   entry; `evilcdn.example.com` and `cdn.example.com.evil.net` never match).
///
/// Query and fragment are free.  A rejected URL is a `schema` error with the
/// URL as its input and a message naming the ``Rejection``.
///
/// URLs inside tokens may hold `{{binding}}` placeholders; those are checked
/// as templates (``rejection(forTemplate:)``): the scheme and host must be
/// literal, before the first placeholder.  ``violations(in:)`` walks a
/// token's props and reports every URL that breaks a rule, with its path.
public struct ImageURLPolicy: Sendable, Equatable {
    /// Why a URL was refused.
    public enum Rejection: String, Sendable, CaseIterable, CustomStringConvertible {
        /// A character outside ASCII somewhere in the URL.
        case nonASCII = "non-ascii"
        /// A control character or a space.
        case controlOrSpace = "control-or-space"
        /// A backslash, which some parsers read as `/`.
        case backslash
        /// Foundation could not parse the text as a URL.
        case unparsable
        /// No scheme at all, including protocol-relative `//host/…`.
        case missingScheme = "missing-scheme"
        /// A scheme other than `https`.
        case notHTTPS = "not-https"
        /// A user name or password before the host.
        case userinfo
        /// No host, or an empty one.
        case emptyHost = "empty-host"
        /// A percent-encoded character in the host.
        case percentEncodedHost = "percent-encoded-host"
        /// An IP address instead of a DNS name.
        case ipLiteral = "ip-literal"
        /// A host ending in a dot.
        case trailingDot = "trailing-dot"
        /// An internationalized (punycode `xn--`) host label.
        case internationalizedHost = "internationalized-host"
        /// A host that is not a valid DNS name.
        case invalidHost = "invalid-host"
        /// An explicit port other than 443, or an empty one.
        case port
        /// A `{{binding}}` before the host is complete: the host must be literal.
        case bindingInHost = "binding-in-host"
        /// A well-formed HTTPS URL whose host is not on the allow-list.
        case hostNotAllowed = "host-not-allowed"

        /// What the rule is, in words.
        public var description: String {
            switch self {
            case .nonASCII: return "non-ASCII character (percent-encode it; IDN hosts are refused)"
            case .controlOrSpace: return "control character or space"
            case .backslash: return "backslash"
            case .unparsable: return "not a URL"
            case .missingScheme: return "no scheme (protocol-relative and relative URLs are refused)"
            case .notHTTPS: return "scheme is not https"
            case .userinfo: return "user information before the host"
            case .emptyHost: return "no host"
            case .percentEncodedHost: return "percent-encoded host"
            case .ipLiteral: return "IP address instead of a host name"
            case .trailingDot: return "host ends with a dot"
            case .internationalizedHost: return "internationalized (punycode) host"
            case .invalidHost: return "host is not a valid DNS name"
            case .port: return "explicit port other than 443"
            case .bindingInHost: return "host is not literal: a {{binding}} may only follow the first \"/\", \"?\" or \"#\""
            case .hostNotAllowed: return "host is not an allowed CDN host"
            }
        }
    }

    /// One image URL in a token that breaks the policy.
    public struct Violation: Sendable, Hashable, CustomStringConvertible {
        /// Where the string is, as `props.children[2].props.url`.
        public var path: String
        /// The string as it appears in the token.
        public var url: String
        /// The rule it breaks.
        public var rejection: Rejection

        /// `path: reason (url)`.
        public var description: String { "\(path): \(rejection) (\(url))" }
    }

    /// The allow-list, lowercased, as given (entries may start with `*.`).
    public let allowedHosts: [String]
    private let exactHosts: Set<String>
    private let wildcardParents: [String]
    /// Every well-formed host passes (``structuralRejection(forTemplate:)``).
    private let anyHost: Bool

    /// A policy allowing `allowedHosts`: host names, each optionally written
    /// `*.name` to allow every subdomain of `name`.  Throws an `argument`
    /// error for an empty list or an entry that is not a literal DNS name of
    /// at least two labels (no scheme, port, IP address, IDN or trailing dot).
    public init(allowedHosts: [String]) throws {
        guard !allowedHosts.isEmpty else {
            throw SDUIError(.argument, "an image URL policy needs at least one allowed host")
        }
        var exact = Set<String>()
        var parents: [String] = []
        var normalized: [String] = []
        for entry in allowedHosts {
            let lower = entry.lowercased()
            let wildcard = lower.hasPrefix("*.")
            let name = wildcard ? String(lower.dropFirst(2)) : lower
            if let problem = Self.hostProblem(name) {
                throw SDUIError(.argument, "allowed host \"\(entry)\" is refused: \(problem)", input: entry)
            }
            guard name.split(separator: ".").count >= 2 else {
                throw SDUIError(.argument, "allowed host \"\(entry)\" needs at least two labels", input: entry)
            }
            if wildcard { parents.append(name) } else { exact.insert(name) }
            normalized.append(lower)
        }
        self.allowedHosts = normalized
        self.exactHosts = exact
        self.wildcardParents = parents
        self.anyHost = false
    }

    /// Every rule but the allow-list.
    private init(anyHost: Void) {
        (allowedHosts, exactHosts, wildcardParents, self.anyHost) = ([], [], [], true)
    }

    /// The URL if `url` is allowed; else throws a `schema` error whose
    /// message names the rule broken and whose input is the URL.
    @discardableResult
    public func check(_ url: String) throws -> URL {
        switch evaluate(url) {
        case .accepted(let u): return u
        case .rejected(let r): throw Self.error(r, url)
        }
    }

    /// Why `url` is refused, or nil when it is allowed.
    public func rejection(for url: String) -> Rejection? {
        if case .rejected(let r) = evaluate(url) { return r }
        return nil
    }

    /// Why a URL template is refused, or nil when it is allowed.  A template
    /// may hold `{{binding}}` placeholders, to be filled at render time;
    /// only the text before the first `{{` is checked, and it must hold the
    /// whole scheme and host, ended by `/`, `?` or `#`, so that no binding
    /// can change where the image comes from.  `https://cdn/x/{{id}}.png` is
    /// allowed; `https://{{host}}/x.png`, `https://cdn{{suffix}}/x.png` and a
    /// URL that is only a binding are not (check the resolved URL instead).
    /// Text without `{{` is checked as a plain URL.
    public func rejection(forTemplate template: String) -> Rejection? {
        guard let open = template.range(of: "{{") else { return rejection(for: template) }
        // The literal text around the bindings ends up in the URL too.
        if let r = Self.rawTextProblem(Self.removingBindings(template)) { return r }
        let prefix = String(template[..<open.lowerBound])
        let found = rejection(for: prefix)
        if let schemeEnd = prefix.range(of: "://"),
           prefix[schemeEnd.upperBound...].contains(where: { "/?#".contains($0) }) {
            return found
        }
        // The binding would still be part of the scheme or the host.  Report
        // a problem that no binding could cure (a wrong scheme, userinfo, a
        // relative URL) as itself.
        switch found {
        case .unparsable?, .notHTTPS?, .userinfo?:
            return found
        case .missingScheme? where prefix.hasPrefix("/"):
            return found
        default:
            return .bindingInHost
        }
    }

    /// `template` without its `{{…}}` placeholders.
    private static func removingBindings(_ template: String) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else { return out }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// Why a URL template would be refused under any allow-list: every rule
    /// but the host's being on the list.  For URLs checked before an app's
    /// CDN hosts are known (a block's image).
    public static func structuralRejection(forTemplate template: String) -> Rejection? {
        anyHostPolicy.rejection(forTemplate: template)
    }

    private static let anyHostPolicy = ImageURLPolicy(anyHost: ())

    /// A policy that checks everything but the host: HTTPS, a well-formed
    /// literal DNS name, no credentials or odd ports.  For tools that have
    /// no CDN list to check against (`sdui pack build` without `--cdn-host`).
    public static var anyHTTPSHost: ImageURLPolicy { anyHostPolicy }

    /// Checks a URL template (see ``rejection(forTemplate:)``); throws a
    /// `schema` error when it is refused.
    public func checkTemplate(_ template: String) throws {
        if let r = rejection(forTemplate: template) { throw Self.error(r, template) }
    }

    // MARK: Tokens

    /// Every string in `token`'s props that is an image URL and breaks the
    /// policy, in a stable order (object members sorted by name).
    ///
    /// A string is checked when the nearest object member holding it (through
    /// arrays) is named `url`, `src` or `imageUrl` in any case, or when it
    /// starts, in any case and after leading whitespace, with `http:`,
    /// `https:`, `//` or `data:`.  Strings with `{{binding}}` placeholders are
    /// checked as templates (see ``rejection(forTemplate:)``).  An `action`
    /// member is left out: an action's URLs are not images.
    public func violations(in token: DesignToken) -> [Violation] {
        violations(in: token.props, path: "props")
    }

    /// Like `violations(in:)` on a token, for any props tree; `path`
    /// names its root.
    public func violations(in value: JSONValue, path: String = "props") -> [Violation] {
        var out: [Violation] = []
        walk(value, path: path, underURLKey: false, into: &out)
        return out
    }

    /// Throws a `schema` error naming the token and listing the violations
    /// when `token` has any, so an importer or a repository can refuse it.
    public func validate(_ token: DesignToken) throws {
        let found = violations(in: token)
        guard !found.isEmpty else { return }
        let shown = found.prefix(5).map(\.description).joined(separator: "; ")
        let more = found.count > 5 ? "; and \(found.count - 5) more" : ""
        throw SDUIError(.schema, "\(found.count) image URL(s) break the policy (HTTPS on "
                        + allowedHosts.joined(separator: ", ") + " only): \(shown)\(more)",
                        input: token.id)
    }

    private func walk(_ value: JSONValue, path: String, underURLKey: Bool, into out: inout [Violation]) {
        switch value {
        case .string(let s):
            guard underURLKey || Self.looksLikeURL(s) else { return }
            if let r = rejection(forTemplate: s) {
                out.append(Violation(path: path, url: s, rejection: r))
            }
        case .array(let items):
            for (i, item) in items.enumerated() {
                walk(item, path: "\(path)[\(i)]", underURLKey: underURLKey, into: &out)
            }
        case .object(let members):
            // A node's `action` is not an image: its URLs are links and
            // endpoints, which the action rows check (the link policy, the
            // endpoint policy) when the action is read and when it runs.
            for key in members.keys.sorted() where key != "action" {
                let isURLKey = Self.urlKeys.contains(key.lowercased())
                walk(members[key]!, path: Self.append(key, to: path), underURLKey: isURLKey, into: &out)
            }
        case .null, .bool, .int, .double:
            return
        }
    }

    private static let urlKeys: Set<String> = ["url", "src", "imageurl"]

    private static func looksLikeURL(_ s: String) -> Bool {
        let t = s.drop(while: { $0.isWhitespace }).prefix(8).lowercased()
        return t.hasPrefix("http:") || t.hasPrefix("https:") || t.hasPrefix("//") || t.hasPrefix("data:")
    }

    /// `path.key`, or `path["key"]` for keys that are not plain names.
    private static func append(_ key: String, to path: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
        return plain ? "\(path).\(key)" : "\(path)[\(JSONValue.literal(key))]"
    }

    // MARK: Rules

    private static func error(_ r: Rejection, _ url: String) -> SDUIError {
        SDUIError(.schema, "image URL refused: \(r) (only HTTPS on the configured CDN hosts is allowed)",
                  input: url)
    }

    private func evaluate(_ url: String) -> Outcome {
        if let r = Self.rawTextProblem(url) { return .rejected(r) }
        guard let c = URLComponents(string: url) else { return .rejected(.unparsable) }
        guard let scheme = c.scheme, !scheme.isEmpty else { return .rejected(.missingScheme) }
        guard scheme.lowercased() == "https" else { return .rejected(.notHTTPS) }
        // The raw authority, between "https://" and the first "/", "?" or
        // "#".  Its host is checked as written: Foundation may decode
        // punycode or percent-escapes in what it returns, which must then
        // agree with the text.
        guard url.prefix(scheme.count + 1).lowercased() == "https:" else { return .rejected(.unparsable) }
        let afterScheme = url.dropFirst(scheme.count + 1)
        guard afterScheme.hasPrefix("//") else { return .rejected(.emptyHost) }
        let authority = afterScheme.dropFirst(2).prefix(while: { !"/?#".contains($0) })
        if c.percentEncodedUser != nil || c.percentEncodedPassword != nil || authority.contains("@") {
            return .rejected(.userinfo)
        }
        if authority.hasPrefix("[") { return .rejected(.ipLiteral) }
        var hostText = authority
        if let colon = authority.lastIndex(of: ":") {
            guard authority[authority.index(after: colon)...] == "443" else { return .rejected(.port) }
            hostText = authority[..<colon]
            if hostText.contains(":") { return .rejected(.port) }
        }
        let host = hostText.lowercased()
        if let r = Self.hostProblem(host) { return .rejected(r) }
        guard c.percentEncodedHost?.lowercased() == host, c.port == nil || c.port == 443 else {
            return .rejected(.unparsable)
        }
        guard isAllowed(host) else { return .rejected(.hostNotAllowed) }
        guard let result = c.url else { return .rejected(.unparsable) }
        return .accepted(result)
    }

    private enum Outcome {
        case accepted(URL)
        case rejected(Rejection)
    }

    private func isAllowed(_ host: String) -> Bool {
        anyHost || exactHosts.contains(host) || wildcardParents.contains { host.hasSuffix("." + $0) }
    }

    /// Characters refused anywhere in the text, before parsing.
    private static func rawTextProblem(_ s: String) -> Rejection? {
        for u in s.unicodeScalars {
            if u.value > 0x7e { return u.value == 0x7f ? .controlOrSpace : .nonASCII }
            if u.value <= 0x20 { return .controlOrSpace }
            if u == "\\" { return .backslash }
        }
        return nil
    }

    /// Why a lowercased host name is not a literal DNS name, or nil.
    private static func hostProblem(_ host: String) -> Rejection? {
        if host.isEmpty { return .emptyHost }
        if let r = rawTextProblem(host) { return r }
        if host.contains("%") { return .percentEncodedHost }
        if host.hasPrefix("[") || host.contains(":") { return .ipLiteral }
        if host.hasSuffix(".") { return .trailingDot }
        guard host.utf8.count <= 253 else { return .invalidHost }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.utf8.count),
                  label.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }),
                  !label.hasPrefix("-"), !label.hasSuffix("-") else {
                return .invalidHost
            }
            if label.hasPrefix("xn--") { return .internationalizedHost }
        }
        // A numeric last label makes the host an IPv4 address for URL
        // parsers (`127.0.0.1`, `127.1`, `2130706433`, `0x7f.1`).
        let last = labels.last!
        if last.allSatisfy(\.isASCIIDigit)
            || (last.hasPrefix("0x") && last.dropFirst(2).allSatisfy(\.isHexDigit)) {
            return .ipLiteral
        }
        return nil
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
