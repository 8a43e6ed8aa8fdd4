// SDUIKitVersionTests.swift - the engine's version string and its parts.
import SDUI
import SDUITestSupport
import Foundation
import Testing

@Suite struct SDUIKitVersionTests {
    @Test func theLibraryVersionIsSemVer() {
        #expect(SDUIKitVersion.string == "\(SDUIKitVersion.major).\(SDUIKitVersion.minor).\(SDUIKitVersion.patch)")
    }
}

extension SDUIKitVersionTests {
    /// One place: the linked C core, the Swift constant, sdui.pc.in's
    /// placeholder and the CHANGELOG's latest release all agree.
    @Test func theVersionIsWrittenOnce() throws {
        #expect(SDUIKitVersion.linked == SDUIKitVersion.string)
        let root = Fixtures.repositoryRoot
        let pc = try String(contentsOf: root.appendingPathComponent("sdui.pc.in"), encoding: .utf8)
        #expect(pc.contains("Version: @VERSION@"))
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let firstRelease = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(firstRelease?.hasPrefix("## [\(SDUIKitVersion.string)]") == true, "\(String(describing: firstRelease))")
    }
}
