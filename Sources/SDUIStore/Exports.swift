// Exports.swift - what an app that imports SDUIStore also gets.

/// The ground floor the store's API speaks in (`SDUIError`, `KeyPath`,
/// `JSONValue`, `CompiledExpression`): an app that imports SDUIStore sees it.
@_exported public import SDUICore
