// BlockFixtures.swift - the example block screens, for the suites that render them.
import Foundation
@testable import SDUI
import SDUITestSupport

/// Suites that load the example block screens of Examples/blocks.
protocol BlockScreenFixtures {}

extension BlockScreenFixtures {
    static var blocks: URL { Fixtures.repositoryRoot.appendingPathComponent("Examples/blocks") }

    func load(_ name: String) throws -> BlockScreen {
        try BlockScreen(json: Data(contentsOf: Self.blocks.appendingPathComponent(name)), source: name)
    }
}
