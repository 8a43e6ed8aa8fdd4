// CBytesTests.swift - many byte strings handed to the C core in one buffer.
import Foundation
@testable import SDUI
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
}
