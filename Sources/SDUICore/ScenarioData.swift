// ScenarioData.swift - what a render reads from scenario data, without the
// render layer knowing the store that holds it.

/// Scenario data a screen reads after its item's and the host's bindings:
/// the third layer of a binding lookup, and the data `@{…}` expressions see.
///
/// `SDUIStore`'s `ScenarioStore` conforms; a test or a preview may supply
/// its own.  Both calls may come from any thread, while the data changes
/// under them: each answers from one consistent state.
public protocol ScenarioData: AnyObject, Sendable {
    /// The value at `path`; nil when the data holds none there.
    func value(at path: KeyPath) -> JSONValue?

    /// The top-level member `name` as a core document, for expression
    /// evaluation; nil when there is none.  Implementations keep the
    /// document until that member changes, so evaluating many expressions
    /// over unchanged data builds it once.
    ///
    /// - Throws: ``SDUIError`` when the value cannot be held by the core
    ///   (deeper than its nesting bound).
    func document(root name: String) throws -> JSONDocument?
}
