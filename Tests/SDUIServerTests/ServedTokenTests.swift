// ServedTokenTests.swift - a stored version parsed once: what its whole tree needs.
#if Server
import Foundation
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct ServedTokenTests {
    @Test func everyNestedNodeCountsTowardsSupport() throws {
        let nested = #"{"children":[{"primitive":"Row","primitiveVersion":2,"props":{"children":[{"primitive":"Text","primitiveVersion":5,"props":{"text":"x"}}]}}]}"#
        let served = try RegistrySnapshot.serve(stored("card", primitive: "Column", primitiveVersion: 3, props: nested), signer: nil)
        #expect(served.requirements.map { "\($0.primitive)@\($0.version)" } == ["Column@3", "Row@2", "Text@5"])
        #expect(served.isSupported(by: try PrimitiveMap(parsing: "Column@3,Row@2,Text@5")))
        #expect(served.isSupported(by: try PrimitiveMap(parsing: "Column@4,Row@3,Text@6,Spacer@1")))
        #expect(!served.isSupported(by: try PrimitiveMap(parsing: "Column@3,Row@2,Text@4")))
        #expect(!served.isSupported(by: try PrimitiveMap(parsing: "Column@3,Text@5")))
    }
}
#endif
