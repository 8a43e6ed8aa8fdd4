// UserPrefsPersistence.swift - the userPrefs scope: the state in
// UserDefaults(suiteName:), under one key per app.
import Foundation
import SDUICore

/// Saves a store's state in `UserDefaults` as one JSON text under
/// `sdui.store.<appID>`.
final class UserPrefsPersistence: StorePersistence, @unchecked Sendable {
    // UserDefaults is thread-safe; the rest is immutable after init.
    let defaults: UserDefaults
    let key: String
    let version: SemanticVersion?

    /// The defaults of `suite` (the standard ones when nil).
    init(suite: String?, appID: String, version: SemanticVersion?) {
        self.defaults = suite.flatMap { UserDefaults(suiteName: $0) } ?? .standard
        self.key = "sdui.store.\(appID)"
        self.version = version
    }

    /// Reads the saved text.
    func load() throws -> (state: [String: StoreValue]?, warning: String?) {
        guard let text = defaults.string(forKey: key) else { return (nil, nil) }
        let json = try JSONValue(json: Data(text.utf8), source: "user defaults key \(key)")
        let (state, dropped) = try SavedState.decode(json, version: version)
        if let dropped, let version {
            try clear()
            return (state, "dropped the data saved by version \(dropped): this is \(version), a new major version")
        }
        return (state, nil)
    }

    /// Saves the state as JSON text.
    func commit(_ state: [String: StoreValue], change: StoreChange) throws -> [String: StoreValue]? {
        let data = try JSONEncoder().encode(SavedState.encode(state, version: version))
        defaults.set(String(decoding: data, as: UTF8.self), forKey: key)
        return nil
    }

    /// Removes the key.
    func clear() throws {
        defaults.removeObject(forKey: key)
    }
}
