// KeyPathTraversable.swift - what a value model offers so that KeyPath can
// read, write and remove inside it: JSONValue, and the store's StoreValue,
// share one walker instead of each keeping its own.

/// A tree of objects and arrays that ``KeyPath`` can walk.
///
/// A conforming type says how to see a value as an object or an array and
/// how to make one back; ``KeyPath/get(in:)``, ``KeyPath/set(_:in:)`` and
/// ``KeyPath/remove(from:)`` do the rest.  The walker changes containers in
/// place: it reads one out (``pathObject``/``pathArray``), parks
/// ``pathPlaceholder`` in the node so the container is uniquely referenced,
/// changes it and puts it back.
public protocol KeyPathTraversable {
    /// The members when the value is an object, else nil.
    var pathObject: [String: Self]? { get }
    /// The elements when the value is an array, else nil.
    var pathArray: [Self]? { get }
    /// An object value of these members.
    static func pathObject(_ members: [String: Self]) -> Self
    /// An array value of these elements.
    static func pathArray(_ items: [Self]) -> Self
    /// A cheap value the walker leaves in a node while it changes the
    /// node's container (null, say).
    static var pathPlaceholder: Self { get }
    /// The kind of the value as an error message names it: `a number`,
    /// `an object`, `null`.
    var pathKindText: String { get }
}

extension JSONValue: KeyPathTraversable {
    /// The members of an object, else nil.
    public var pathObject: [String: JSONValue]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// The elements of an array, else nil.
    public var pathArray: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// `.object(members)`.
    public static func pathObject(_ members: [String: JSONValue]) -> JSONValue { .object(members) }

    /// `.array(items)`.
    public static func pathArray(_ items: [JSONValue]) -> JSONValue { .array(items) }

    /// `.null`.
    public static var pathPlaceholder: JSONValue { .null }

    /// The kind as a message names it.
    public var pathKindText: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
