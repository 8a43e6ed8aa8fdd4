// Exports.swift - what an app that imports SDUI also gets.

/// The ground floor every client module shares (``JSONValue``, `SDUIError`,
/// `HTTPClient`, ``FileInput``): an app that imports SDUI sees it too.
@_exported public import SDUICore
