// PackFixtures.swift - pack candidates for the planner and Fallback Pack writer suites.
import Foundation
import SDUIRegistryKit
import SDUITestSupport

enum PackFixtures {
    /// 60 tokens of varied text, so gzip sizes grow with the count.
    static let candidates: [PackCandidate] = (0..<60).map { i in
        let text = (0..<20).map { "w\((i * 7919 + $0 * 104_729) % 100_003)" }.joined(separator: " ")
        return PackCandidate(id: "t\(i)", version: 1, json: Data(Fixtures.token("t\(i)", props: #"{"text":"\#(text)"}"#).utf8))
    }
}
