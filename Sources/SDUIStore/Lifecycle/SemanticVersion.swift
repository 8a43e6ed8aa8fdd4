// SemanticVersion.swift - the version of an app's scenario data; a major bump drops it.

/// `major.minor.patch`.  A store stamps what it saves with its version; a
/// saved state of another major version is dropped when read (no
/// migrations).
public struct SemanticVersion: Comparable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Incompatible changes of the saved data: a different major drops it.
    public var major: Int
    /// Compatible additions; saved data is kept.
    public var minor: Int
    /// Fixes; saved data is kept.
    public var patch: Int

    /// A version.
    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// A version.
    public init(major: Int, minor: Int, patch: Int) {
        self.init(major, minor, patch)
    }

    /// Reads `1.2.3` (`1.2` and `1` too); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.allSatisfy(\.isASCII), p.allSatisfy(\.isNumber), let n = Int(p) else { return nil }
            numbers.append(n)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(numbers[0], numbers[1], numbers[2])
    }

    /// `major.minor.patch`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// Orders by major, then minor, then patch.
    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    /// Whether data saved at `saved` must be dropped by this version.
    public func dropsData(savedAt saved: SemanticVersion) -> Bool { saved.major != major }

    /// Encodes as its text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Decodes from its text.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let v = SemanticVersion(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a version: \(text)")
        }
        self = v
    }
}
