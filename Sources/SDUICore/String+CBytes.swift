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
