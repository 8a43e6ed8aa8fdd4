// BindingLimits.swift - how much binding fills may produce.
import SDUICore

/// How much text and data binding fills may produce (see ``BindingScope``).
/// A bound value counts by its size as JSON text would hold it, roughly:
/// a string by its UTF-8 bytes, a number or boolean by its digits, a list or
/// object by the sum of its members plus one byte each.
public struct BindingLimits: Sendable, Equatable {
    /// Bytes one filled string (or one whole-value binding) may hold.
    public var maxStringBytes: Int
    /// Bytes all the fills of one node's props may produce together.
    public var maxNodeBytes: Int
    /// Bytes all the fills of one render tree may produce together.
    public var maxTreeBytes: Int

    /// 64 KiB per string, 256 KiB per node, 4 MiB per tree.
    public init(maxStringBytes: Int = 64 << 10, maxNodeBytes: Int = 256 << 10, maxTreeBytes: Int = 4 << 20) {
        self.maxStringBytes = maxStringBytes
        self.maxNodeBytes = maxNodeBytes
        self.maxTreeBytes = maxTreeBytes
    }

    /// The size of `v` as counted against the limits, or nil when it is
    /// over `budget`.  Stops walking as soon as the budget is spent, so the
    /// cost of a huge bound value is bounded by the budget, not its size.
    static func size(of v: JSONValue, within budget: Int) -> Int? {
        var used = 0
        func add(_ n: Int) -> Bool {
            used += n
            return used <= budget
        }
        func walk(_ v: JSONValue) -> Bool {
            switch v {
            case .string(let s): return add(s.utf8.count + 2)
            case .int, .double: return add(8)
            case .bool: return add(5)
            case .null: return add(4)
            case .array(let a):
                guard add(2) else { return false }
                for x in a where !(add(1) && walk(x)) { return false }
                return true
            case .object(let o):
                guard add(2) else { return false }
                for (k, x) in o where !(add(k.utf8.count + 4) && walk(x)) { return false }
                return true
            }
        }
        return walk(v) ? used : nil
    }
}
