// CBytesTests.swift - many byte strings handed to the C core in one buffer.
import Foundation
import SDUICore
import Testing

@Suite struct CBytesTests {
    @Test func eachPartKeepsItsBytesAndLength() {
        let parts = [Data("ab".utf8), Data(), Data("cde".utf8), Data([0xff])]
        let seen: [String] = withCBytes(parts) { pointers, lengths in
            #expect(pointers.count == 4 && lengths == [2, 0, 3, 1])
            return zip(pointers, lengths).map { String(cBytes: $0, count: $1) }
        }
        #expect(seen == ["ab", "", "cde", "\u{FFFD}"])
        #expect(withCBytes([]) { pointers, lengths in pointers.isEmpty && lengths.isEmpty })
    }

    @Test func emptyPartsGetRealPointersToAnEmptyCString() {
        // Only empty parts: still one non-nil pointer each, at a NUL, so a
        // caller can tell "empty" from an absent value it passes as NULL.
        let lengths: [Int] = withCBytes([Data(), Data()]) { pointers, lengths in
            for p in pointers {
                #expect(p != nil)
                #expect(p.map { strlen($0) } == 0)
            }
            return lengths
        }
        #expect(lengths == [0, 0])
    }

    @Test func embeddedNULsKeepTheirFullLength() {
        let parts = [Data([0x61, 0x00, 0x62]), Data([0x00]), Data("z".utf8)]
        let copies: [[UInt8]] = withCBytes(parts) { pointers, lengths in
            #expect(lengths == [3, 1, 1])
            return zip(pointers, lengths).map { p, n in
                Array(UnsafeRawBufferPointer(start: p!, count: n))
            }
        }
        #expect(copies == [[0x61, 0x00, 0x62], [0x00], [0x7a]])
    }

    @Test func eachPartIsFollowedByANULItsLengthDoesNotCount() {
        let keys = ["first", "", "a.b"]
        let seen: [String] = withCBytes(keys.map { Data($0.utf8) }) { pointers, lengths in
            #expect(lengths == [5, 0, 3])
            return pointers.map { String(cString: $0!) }
        }
        #expect(seen == keys)
    }

    @Test func aThrowFromTheBodyPassesThrough() {
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try withCBytes([Data("x".utf8)]) { _, _ in throw Boom() }
        }
    }
}
