// CBytes.swift - handing many byte strings to the C core in one buffer.
import Foundation

/// Calls `body` with a C pointer to, and the length of, each of `parts`,
/// all copied once into one buffer that lives for the call.
///
/// Every pointer is non-nil, an empty part included, and each part is
/// followed by a NUL byte that its length does not count: a part without
/// an embedded NUL can be passed where C wants a NUL-terminated string, and
/// a caller that needs a NULL (an absent value) chooses it itself.  The
/// pointers are valid only inside `body`.
package func withCBytes<R>(_ parts: [Data],
                           _ body: ([UnsafePointer<CChar>?], [Int]) throws -> R) rethrows -> R {
    var arena = [UInt8]()
    arena.reserveCapacity(parts.reduce(parts.count) { $0 + $1.count })
    var offsets: [Int] = []
    offsets.reserveCapacity(parts.count)
    for p in parts {
        offsets.append(arena.count)
        arena.append(contentsOf: p)
        arena.append(0)
    }
    if arena.isEmpty { arena.append(0) }    // a real base even for no parts
    return try arena.withUnsafeBytes { raw in
        let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
        return try body(offsets.map { base + $0 }, parts.map(\.count))
    }
}
