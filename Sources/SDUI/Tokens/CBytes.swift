// CBytes.swift - handing many byte strings to the C core in one buffer.
import Foundation
import SDUICore

/// Calls `body` with a C pointer to, and the length of, each of `parts`,
/// all copied once into one buffer that lives for the call.
func withCBytes<R>(_ parts: [Data], _ body: ([UnsafePointer<CChar>?], [Int]) -> R) -> R {
    var arena = [UInt8]()
    arena.reserveCapacity(parts.reduce(0) { $0 + $1.count })
    var offsets: [Int] = []
    offsets.reserveCapacity(parts.count)
    for p in parts {
        offsets.append(arena.count)
        arena.append(contentsOf: p)
    }
    return arena.withUnsafeBytes { raw in
        let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
        return body(offsets.map { off in base.map { $0 + off } }, parts.map(\.count))
    }
}
