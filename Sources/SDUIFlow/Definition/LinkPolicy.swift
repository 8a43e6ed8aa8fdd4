// LinkPolicy.swift - which URLs a flow may hand to the host (`open_url`) or
// post answers to (`submit`): the link policy, apart from the image policy.
//
// An image URL is fetched by the app from a CDN it trusts; a link is opened
// by the system, where a scheme can run code (`javascript:`), read local
// files (`file:`), launch another app with arbitrary extras (`intent:`) or
// carry a whole document (`data:`).  So the two policies differ: images are
// HTTPS on listed hosts (ImageURLPolicy); links are URLs of allowed schemes
// (HTTPS only by default, more when the host says so), and a set of schemes
// that reach code or local data is refused whatever the configuration.  The
// same policy is applied when a flow is validated and when an action runs,
// so a flow that validates does not fail at run time on a URL, and a link
// that slipped past validation (a flow built in code) is refused anyway.
import Foundation
import SDUICore

/// Which URLs `open_url` may open and `submit` may post to.
///
/// A URL is accepted when all of these hold:
/// - it is 1 to ``maxBytes`` bytes of ASCII, with no control character,
///   space or backslash (which parsers disagree about);
/// - it starts with a scheme (`letter *(letter / digit / "+" / "-" / ".")
///   ":"`), which, lowercased, is not one of ``refusedSchemes`` and is one
///   of ``allowedSchemes``;
/// - for `http` and `https`: `//` and a non-empty host follow, with no user
///   information (`https://bank.example@evil.example/`); when
///   ``allowedHosts`` is set, the host (lowercased) is one of them, or a
///   subdomain of an entry written `*.name`;
/// - Foundation parses it (`URL(string:)`).
///
/// A refused URL is a `schema` error whose input is the URL and whose
/// message names the rule: `link refused: scheme "javascript" is never
/// allowed (...)`.
public struct LinkPolicy: Sendable, Hashable {
    /// Why a URL was refused.
    public enum Rejection: String, Sendable, Hashable, CaseIterable {
        /// No text at all.
        case empty
        /// Over ``LinkPolicy/maxBytes``.
        case tooLong = "too-long"
        /// A character outside ASCII.
        case nonASCII = "non-ascii"
        /// A control character or a space (also one hidden in a scheme).
        case controlOrSpace = "control-or-space"
        /// A backslash, which parsers read differently.
        case backslash
        /// No scheme: a relative or protocol-relative URL.
        case missingScheme = "missing-scheme"
        /// One of ``LinkPolicy/refusedSchemes``.
        case refusedScheme = "refused-scheme"
        /// A scheme that is not one of ``LinkPolicy/allowedSchemes``.
        case schemeNotAllowed = "scheme-not-allowed"
        /// `http(s)` without `//` and a host.
        case missingHost = "missing-host"
        /// A user name or password before the host.
        case userinfo
        /// A host not in ``LinkPolicy/allowedHosts``.
        case hostNotAllowed = "host-not-allowed"
        /// Foundation cannot parse it.
        case unparsable
    }

    /// Schemes refused under any configuration: they run code, reach local
    /// files or app internals, or embed a document.
    public static let refusedSchemes: Set<String> = [
        "javascript", "vbscript", "livescript", "file", "data", "blob", "intent", "android-app",
        "content", "jar", "filesystem", "view-source", "about", "chrome", "chrome-extension",
        "moz-extension", "resource", "ms-settings", "ms-appx", "ms-appx-web", "shell",
    ]

    /// The longest URL accepted, in bytes.
    public static let maxBytes = 8192

    /// The schemes accepted, lowercase.
    public let allowedSchemes: Set<String>
    /// The hosts `http(s)` links may go to (lowercase; `*.name` for the
    /// subdomains of `name`); nil for any host.
    public let allowedHosts: [String]?

    /// A policy of `allowedSchemes` (case-insensitive) and, for `http(s)`,
    /// `allowedHosts` (nil: any).  Throws an `argument` error for an empty
    /// list, a scheme that is not one, or one of ``refusedSchemes``.
    public init(allowedSchemes: Set<String> = ["https"], allowedHosts: [String]? = nil) throws {
        guard !allowedSchemes.isEmpty else {
            throw SDUIError(.argument, "a link policy needs at least one allowed scheme")
        }
        var schemes = Set<String>()
        for s in allowedSchemes {
            let lower = s.lowercased()
            guard Self.isScheme(Substring(lower)) else {
                throw SDUIError(.argument, "\"\(s)\" is not a URL scheme (a letter, then letters, digits, \"+\", \"-\" or \".\")",
                                input: s)
            }
            guard !Self.refusedSchemes.contains(lower) else {
                throw SDUIError(.argument, "scheme \"\(lower)\" cannot be allowed: " + Self.refusedWhy, input: s)
            }
            schemes.insert(lower)
        }
        if let hosts = allowedHosts {
            guard !hosts.isEmpty else { throw SDUIError(.argument, "an empty host list allows no link; pass nil for any host") }
            for h in hosts where h.isEmpty || h.contains(where: { "/:@?# ".contains($0) }) {
                throw SDUIError(.argument, "\"\(h)\" is not a host name", input: h)
            }
        }
        self.allowedSchemes = schemes
        self.allowedHosts = allowedHosts?.map { $0.lowercased() }
    }

    private init(trusted schemes: Set<String>) {
        allowedSchemes = schemes
        allowedHosts = nil
    }

    /// HTTPS to any host: the default of `open_url`.
    public static let https = LinkPolicy(trusted: ["https"])

    /// HTTP or HTTPS to any host: where `submit` may post.
    public static let endpoints = LinkPolicy(trusted: ["https", "http"])

    /// Why `text` is refused, or nil when it is accepted.
    public func rejection(for text: String) -> Rejection? {
        if case .rejected(let r, _) = evaluate(text) { return r }
        return nil
    }

    /// The URL if `text` is accepted; else throws a `schema` error naming
    /// the rule, whose input is the URL.
    @discardableResult
    public func check(_ text: String) throws -> URL {
        switch evaluate(text) {
        case .accepted(let url): return url
        case .rejected(_, let why): throw SDUIError(.schema, "link refused: " + why, input: text)
        }
    }

    /// Why, in words, `text` is refused (nil when it is accepted).
    public func reason(for text: String) -> String? {
        if case .rejected(_, let why) = evaluate(text) { return why }
        return nil
    }

    // MARK: Rules

    private enum Outcome {
        case accepted(URL)
        case rejected(Rejection, String)
    }

    private static let refusedWhy = "javascript:, file:, intent:, data: and their kin run code or reach local data"

    private var allowedText: String { allowedSchemes.sorted().map { $0 + ":" }.joined(separator: ", ") }

    private func evaluate(_ text: String) -> Outcome {
        let bytes = text.utf8
        guard !bytes.isEmpty else { return .rejected(.empty, "empty") }
        guard bytes.count <= Self.maxBytes else {
            return .rejected(.tooLong, "\(bytes.count) bytes, over \(Self.maxBytes)")
        }
        for b in bytes {
            if b >= 0x80 { return .rejected(.nonASCII, "a character outside ASCII (percent-encode it)") }
            if b <= 0x20 || b == 0x7f { return .rejected(.controlOrSpace, "a control character or a space") }
            if b == UInt8(ascii: "\\") { return .rejected(.backslash, "a backslash") }
        }
        guard let colon = text.firstIndex(of: ":"), Self.isScheme(text[..<colon]) else {
            return .rejected(.missingScheme, "no scheme (a link must be absolute: \(allowedText))")
        }
        let scheme = text[..<colon].lowercased()
        if Self.refusedSchemes.contains(scheme) {
            return .rejected(.refusedScheme, "scheme \"\(scheme)\" is never allowed (" + Self.refusedWhy + ")")
        }
        guard allowedSchemes.contains(scheme) else {
            return .rejected(.schemeNotAllowed, "scheme \"\(scheme)\" is not allowed (allowed: \(allowedText))")
        }
        if scheme == "http" || scheme == "https" {
            let rest = text[text.index(after: colon)...]
            guard rest.hasPrefix("//") else { return .rejected(.missingHost, "no host (\(scheme)://host/...)") }
            let authority = rest.dropFirst(2).prefix { !"/?#".contains($0) }
            if authority.contains("@") { return .rejected(.userinfo, "user information before the host") }
            var host = authority
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                host = host[...close]
            } else if let c = host.lastIndex(of: ":") {
                host = host[..<c]
            }
            guard !host.isEmpty else { return .rejected(.missingHost, "no host (\(scheme)://host/...)") }
            if let allowed = allowedHosts {
                let h = host.lowercased()
                let ok = allowed.contains { entry in
                    entry.hasPrefix("*.") ? h.hasSuffix(String(entry.dropFirst(1))) : h == entry
                }
                guard ok else {
                    return .rejected(.hostNotAllowed, "host \"\(h)\" is not allowed (allowed: "
                                     + allowed.joined(separator: ", ") + ")")
                }
            }
        }
        guard let url = URL(string: text), url.scheme?.lowercased() == scheme else {
            return .rejected(.unparsable, "not a URL")
        }
        return .accepted(url)
    }

    /// Whether `s` is a scheme: a letter, then letters, digits, `+`, `-`, `.`.
    private static func isScheme(_ s: Substring) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return s.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
        }
    }
}
