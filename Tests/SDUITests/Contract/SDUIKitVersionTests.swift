// SDUIKitVersionTests.swift - the engine's version string and its parts.
import SDUI
import Testing

@Suite struct SDUIKitVersionTests {
    @Test func theLibraryVersionIsSemVer() {
        #expect(SDUIKitVersion.string == "\(SDUIKitVersion.major).\(SDUIKitVersion.minor).\(SDUIKitVersion.patch)")
    }
}
