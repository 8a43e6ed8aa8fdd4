// JSONPathReader.swift - reads a decoded JSON value field by field, so
// every error names the input and the JSON path of the value at fault
// (`$.screens[2].next[0].to`).

/// A JSON value and where it sits in its document.
///
/// Documents are read in one of two ways, both from a ``JSONValue`` the
/// core's parser made: typed models (`Codable`) through
/// ``JSONValueDecoder``, and documents checked by hand (a flow definition,
/// a normalized payload) through this reader, because their errors name
/// the JSON path of the bad value in the document's own terms
/// (`$.screens[1].blocks[0].key`), and unknown members are allowed (a
/// newer server may send more).
package struct JSONPathReader {
    /// The value read.
    package let value: JSONValue
    /// Its JSON path: `$`, `$.screens[0]`, `$.body[2].body`.
    package let path: String
    /// The input named in errors (a file path, a URL).
    package let input: String?

    /// A reader of `value` at `path` (the document's top level, `$`, by
    /// default) whose errors name `input`.
    package init(_ value: JSONValue, path: String = "$", input: String?) {
        self.value = value
        self.path = path
        self.input = input
    }

    /// A `.schema` error about this value.
    package func error(_ message: String) -> SDUIError {
        SDUIError(.schema, "\(path): \(message)", input: input)
    }

    /// A `.limit` error about this value (a size over a bound).
    package func limitError(_ message: String) -> SDUIError {
        SDUIError(.limit, "\(path): \(message)", input: input)
    }

    /// The value's members; throws unless it is an object.
    package func object() throws -> [String: JSONValue] {
        guard let o = value.objectValue else { throw error("must be an object") }
        return o
    }

    /// The value's items as readers; throws unless it is an array.
    package func array() throws -> [JSONPathReader] {
        guard let a = value.arrayValue else { throw error("must be an array") }
        return a.enumerated().map { JSONPathReader($1, path: "\(path)[\($0)]", input: input) }
    }

    /// The path of member `key`: `.key` when it is a plain name, else `["key"]`.
    package func path(of key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || $0 == "_"
        }
        return plain ? "\(path).\(key)" : "\(path)[\(JSONValue.literal(key))]"
    }

    /// Member `key` (nil when absent; `null` counts as absent).
    package func member(_ key: String) throws -> JSONPathReader? {
        guard let v = try object()[key], v != .null else { return nil }
        return JSONPathReader(v, path: path(of: key), input: input)
    }

    /// Member `key`, which must be present.
    package func required(_ key: String) throws -> JSONPathReader {
        guard let m = try member(key) else {
            throw SDUIError(.schema, "\(path): needs \"\(key)\"", input: input)
        }
        return m
    }

    /// The value as a non-empty string.
    package func string() throws -> String {
        guard let s = value.stringValue else { throw error("must be a string") }
        guard !s.isEmpty else { throw error("must not be empty") }
        return s
    }

    /// Member `key` as a non-empty string, or nil when absent.
    package func optionalString(_ key: String) throws -> String? {
        try member(key)?.string()
    }

    /// An integer (a JSON number without a fraction).
    package func int() throws -> Int {
        if let n = value.intValue, let i = Int(exactly: n) { return i }
        if let d = value.doubleValue, d.rounded() == d, let i = Int(exactly: d) { return i }
        throw error("must be an integer")
    }
}
