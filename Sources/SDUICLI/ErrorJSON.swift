// ErrorJSON.swift - the --json form of an error.
#if Server
import Foundation
import SDUI

/// The JSON shape of an error in `--json` output.
package struct ErrorJSON: Encodable {
    package var category: String
    package var message: String
    package var input: String?
    package var offset: Int?
    package var line: Int?
    package var column: Int?

    /// An error that is not an ``SDUIError``: a registry error, a usage error.
    package init(category: String, message: String, input: String? = nil) {
        self.category = category
        self.message = message
        self.input = input
    }

    package init(_ e: SDUIError) {
        category = e.category.rawValue
        message = e.message
        input = e.input
        offset = e.offset
        line = e.line
        column = e.column
    }
}
#endif
