// SDUIErrorTests.swift - categories from the C table and the printed form.
import CSDUI
import Foundation
@testable import SDUICore
import Testing

@Suite struct SDUIErrorTests {
    @Test func everyCStatusMapsToACategory() {
        var names: [String] = []
        for raw in 1..<Int(SDUI_STATUS_COUNT_.rawValue) {
            let status = sdui_status(UInt32(raw))
            var err = sdui_error()
            sdui_error_clear(&err)
            let e = SDUIError(status, err, input: "x")
            #expect(e.category != .unknown, "status \(raw)")
            #expect(e.category.rawValue == String(cString: sdui_status_name(status)))
            names.append(e.category.rawValue)
        }
        #expect(Set(names).count == names.count)
        #expect(String(cString: sdui_status_name(sdui_status(9999))) == "unknown")
    }

    /// Input and message may quote bytes from outside: the description
    /// shows control characters as escapes, on one line; the fields keep them.
    @Test func descriptionEscapesControlCharacters() {
        let e = SDUIError(.json, "unexpected \u{1B}]0;pwned\u{7}", input: "evil\nerror: forged.json")
        #expect(e.description == "json: evil\\nerror: forged.json: unexpected \\u{1B}]0;pwned\\u{07}")
        #expect(!e.description.contains("\n"))
        #expect(e.message.contains("\u{1B}"))
        #expect(e.input == "evil\nerror: forged.json")
    }

    @Test func descriptionNamesInputAndPlace() {
        let e = SDUIError(.json, "unexpected character", input: "a.json", offset: 12, line: 2, column: 5)
        #expect(e.description == "json: a.json: line 2, column 5 (byte 12): unexpected character")
        #expect(SDUIError(.gzip, "bad", input: "p.gz", offset: 3).description == "gzip: p.gz: byte 3: bad")
        #expect(SDUIError(.io, "gone").description == "io: gone")
    }

    @Test func localizedDescriptionReadsLikeDescription() {
        let e = SDUIError(.json, "unexpected character", input: "a.json", offset: 12, line: 2, column: 5)
        #expect(e.localizedDescription == e.description)
        #expect((e as Error).localizedDescription == "json: a.json: line 2, column 5 (byte 12): unexpected character")
    }

    /// The C core's library code (SQLite's result code, errno) comes along.
    @Test func theLibraryCodeIsKept() {
        var err = sdui_error()
        sdui_error_clear(&err)
        err.code = 14   // SQLITE_CANTOPEN
        #expect(SDUIError(SDUI_SQLITE, err, input: "c.db").code == 14)
        err.code = 0
        #expect(SDUIError(SDUI_IO, err, input: "f").code == nil)
    }
}
