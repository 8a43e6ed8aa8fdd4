// ErrorJSON.swift - the --json form of an error.
#if Server
import Foundation
import SDUI

/// The JSON shape of an error in `--json` output.
struct ErrorJSON: Encodable {
    var category: String
    var message: String
    var input: String?
    var offset: Int?
    var line: Int?
    var column: Int?

    /// An error that is not an ``SDUIError``: a registry error, a usage error.
    init(category: String, message: String, input: String? = nil) {
        self.category = category
        self.message = message
        self.input = input
    }

    init(_ e: SDUIError) {
        category = e.category.rawValue
        message = e.message
        input = e.input
        offset = e.offset
        line = e.line
        column = e.column
    }
}
#endif
