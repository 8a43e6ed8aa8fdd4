// RegistryID.swift - the id grammar of the registry's HTTP API.
#if Server

/// The id grammar of the registry's HTTP API, for tokens and screens alike:
/// 1 to 128 characters of `A–Z a–z 0–9 _ - . :`, not starting with `.` and
/// without `..`.  Import refuses any other id, so every stored id can be
/// asked for.
public enum RegistryID {
    /// The longest id: 128 characters (all ASCII, so also 128 bytes).
    public static let maxLength = 128

    /// Whether `id` follows the grammar.
    public static func isValid<S: StringProtocol>(_ id: S) -> Bool {
        let u = id.utf8
        guard !u.isEmpty, u.count <= maxLength, u.first != UInt8(ascii: ".") else { return false }
        var previousDot = false
        for b in u {
            let ok = (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || (b >= 0x30 && b <= 0x39)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: ":")
            guard ok, !(previousDot && b == UInt8(ascii: ".")) else { return false }
            previousDot = b == UInt8(ascii: ".")
        }
        return true
    }
}
#endif
