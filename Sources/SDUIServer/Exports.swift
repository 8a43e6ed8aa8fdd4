// Exports.swift - what a service that imports SDUIServer also gets.
#if Server

/// The registry side below the server (`RegistryError`, ``StoredToken``,
/// ``TokenSigner``, the pack builder): a service that imports SDUIServer
/// sees it too.
@_exported public import SDUIRegistryKit
#endif
