// JSONArrayElements.swift - the elements of a JSON array as byte ranges, by the C scanner.
import Foundation
internal import CSDUI
import SDUICore

/// One element of a JSON array: its exact bytes' range in the array's text,
/// and whether it passed the per-element rules (its depth, counted from the
/// element as a token alone is counted).
struct JSONArrayElement {
    var range: Range<Int>
    /// nil when the element is good; else why it was refused, with its
    /// byte offset in the text.
    var refusal: (category: SDUIError.Category, offset: Int)?
}

enum JSONArrayElements {
    /// The elements of the JSON array `text`, found by one validating scan
    /// (`sdui_json_array_elements`): a grammar error anywhere, or a text that
    /// is not an array, fails the whole call; an element nested deeper than
    /// `maxDepth` is returned refused while its neighbours are kept.  At most
    /// `maxElements` elements.
    static func split(_ text: Data, maxDepth: Int, maxElements: Int = 4096,
                      source: String) throws -> [JSONArrayElement] {
        var count = 0
        var err = sdui_error()
        // An array of n elements is at least 2n + 1 bytes, so a short text
        // needs no more room than that.
        let cap = min(maxElements, max(1, (text.count - 1) / 2 + 1))
        var found = [sdui_json_element](repeating: sdui_json_element(), count: cap)
        let status = text.withUnsafeBytes { raw in
            sdui_json_array_elements(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count,
                                     UInt32(clamping: maxDepth), Int.max, &found, cap, &count, &err)
        }
        try SDUIError.check(status, err, input: source)
        guard count <= cap else { throw SDUIError(.limit, "the list holds \(count) elements; the limit is \(cap)", input: source) }
        return found.prefix(count).map { e in
            let category = SDUIError.Category(rawValue: String(cString: sdui_status_name(e.status))) ?? .limit
            return JSONArrayElement(range: e.start..<e.end,
                                    refusal: e.status == SDUI_OK ? nil : (category, e.fault))
        }
    }
}
