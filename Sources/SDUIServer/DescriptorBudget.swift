// DescriptorBudget.swift - what the descriptor limit leaves for connections.
#if Server
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process may open: the soft `RLIMIT_NOFILE`, the descriptors
/// open now, and the connection cap that fits between them.
public struct DescriptorBudget: Sendable, Equatable {
    /// The soft descriptor limit; nil when unlimited or unknown.
    public var limit: Int?
    /// Descriptors open now (the store, the event loops, stdio…); nil when unknown.
    public var open: Int?

    /// The limit and open count of this process.
    public static func current() -> DescriptorBudget {
        DescriptorBudget(limit: softLimit(), open: openCount())
    }

    /// A budget from a known limit and open count; nil for either means
    /// unlimited or unknown, as in ``current()``.
    public init(limit: Int?, open: Int?) {
        self.limit = limit
        self.open = open
    }

    /// Descriptors kept back from connections: the store's files and
    /// sockets, log files, the runtime's own.  A tenth of the limit, at
    /// least 32.
    public var reserve: Int { max(32, (limit ?? 0) / 10) }

    /// The default connection cap: what the limit leaves after the open
    /// descriptors and ``reserve``; at least 1.  Nil when the limit is
    /// unknown or unlimited.
    public var defaultMaxConnections: Int? {
        guard let limit else { return nil }
        return max(1, limit - (open ?? 0) - reserve)
    }

    /// Whether `maxConnections` connections, with what is open and the
    /// reserve, fit under the limit.
    public func fits(_ maxConnections: Int) -> Bool {
        guard let limit else { return true }
        return maxConnections + (open ?? 0) + reserve <= limit
    }

    /// The soft `RLIMIT_NOFILE`, or nil when unlimited or unknown.
    static func softLimit() -> Int? {
        var r = rlimit()
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)   // an enum in Glibc
        #else
        let resource = RLIMIT_NOFILE
        #endif
        // RLIM_INFINITY is all ones on Linux and Int64.max on Darwin.
        guard getrlimit(resource, &r) == 0, r.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(clamping: r.rlim_cur)
    }

    /// How many descriptors the process has open, from /proc/self/fd
    /// (Linux) or /dev/fd (macOS, the BSDs); nil when neither can be read.
    static func openCount() -> Int? {
        for path in ["/proc/self/fd", "/dev/fd"] {
            guard let dir = opendir(path) else { continue }
            defer { closedir(dir) }
            var count = 0
            while let entry = readdir(dir) {
                let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
                if first != UInt8(ascii: ".") { count += 1 }
            }
            return max(0, count - 1)   // less the directory's own descriptor
        }
        return nil
    }
}
#endif
