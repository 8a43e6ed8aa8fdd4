// BlockStyleTests.swift - a theme's button style and radius settings, and the defaults for anything else.
import Foundation
@testable import SDUI
import Testing

@Suite struct BlockStyleTests {
    @Test func settingsPickTheButtonStyleAndRadius() {
        #expect(BlockStyle(settings: ["buttonStyle": "outline", "radius": "lg"]) == BlockStyle(buttonStyle: .outline, radius: "lg"))
        #expect(BlockStyle(settings: ["buttonStyle": "filled", "radius": "sm"]) == BlockStyle(buttonStyle: .filled, radius: "sm"))
        #expect(BlockStyle(settings: [:]) == BlockStyle())
        // Other values fall back to the defaults, each on its own.
        #expect(BlockStyle(settings: ["buttonStyle": "Outline", "radius": "md"]) == BlockStyle(buttonStyle: .filled, radius: "md"))
        #expect(BlockStyle(settings: ["buttonStyle": "outline", "radius": "xl"]) == BlockStyle(buttonStyle: .outline, radius: nil))
    }

    /// The theme's radius wins over each block's own default.
    @Test func radiusReferences() {
        #expect(BlockStyle().radius("md") == "@radius.md")
        #expect(BlockStyle(radius: "sm").radius("md") == "@radius.sm")
    }
}
