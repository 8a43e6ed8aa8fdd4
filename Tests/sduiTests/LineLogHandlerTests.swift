// LineLogHandlerTests.swift - the log lines of `sdui serve`: one line each, JSON that parses, control characters escaped.
#if Server
import Foundation
import Logging
@testable import sdui_server
import Testing

@Suite struct LineLogHandlerTests {
    static let hostile = "a\u{1B}[2Jb\nc\u{9B}31m\u{2028}d\"e\\f\u{0}"

    /// A message and metadata carrying ESC, a line feed, a C1 control, a
    /// line separator, quote, backslash and NUL: in JSON one object that
    /// reads back to the same text, in text one line; neither holds a raw
    /// control character.
    @Test func controlCharactersAreEscapedInBothFormats() throws {
        let metadata: Logger.Metadata = ["path": .string(Self.hostile), "list": .array([.string(Self.hostile)]),
                                         "nested": .dictionary(["k\u{7}": .stringConvertible(42)])]
        for format in LogFormat.allCases {
            let line = LineLogHandler.line(format: format, time: Date(timeIntervalSince1970: 0), level: .error,
                                           label: "sdui.server", message: Self.hostile, source: "SDUIServer",
                                           metadata: metadata)
            #expect(!line.contains("\n"), "\(format): \(line)")
            #expect(!line.unicodeScalars.contains {
                [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
            }, "\(format): \(line)")
            #expect(line.contains(#"\u001b[2J"#) && line.contains(#"\u009b31m"#) && line.contains(#"\u2028"#), "\(format): \(line)")
        }
        let json = LineLogHandler.line(format: .json, time: Date(timeIntervalSince1970: 0), level: .error,
                                       label: "sdui.server", message: Self.hostile, source: "SDUIServer", metadata: metadata)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["message"] as? String == Self.hostile)
        #expect(object["time"] as? String == "1970-01-01T00:00:00.000Z" && object["level"] as? String == "error")
        let meta = try #require(object["metadata"] as? [String: Any])
        #expect(meta["path"] as? String == Self.hostile && (meta["list"] as? [String]) == [Self.hostile])
        #expect((meta["nested"] as? [String: Any])?["k\u{7}"] as? String == "42")
    }
}
#endif
