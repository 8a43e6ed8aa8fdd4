// String+CBytes.swift - strings from the bytes the C core lends.

extension String {
    /// A string from `count` UTF-8 bytes the C core lends (not NUL-terminated
    /// in general; ill-formed bytes become U+FFFD).
    package init(cBytes p: UnsafePointer<CChar>?, count: Int) {
        guard let p, count > 0 else {
            self = ""
            return
        }
        self = String(decoding: UnsafeRawBufferPointer(start: p, count: count), as: UTF8.self)
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes (NUL-terminated, and the
    /// count without the NUL) for a C function that takes a length.
    package func withCBytes<R>(_ body: (UnsafePointer<CChar>, Int) throws -> R) rethrows -> R {
        try withCString { try body($0, utf8.count) }
    }
}
