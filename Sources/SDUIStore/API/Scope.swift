// Scope.swift - where a store's values live and how long they last.
import Foundation

/// Where a key-value store keeps its values and how long they last.
public enum Scope: Equatable, Hashable, Sendable {
    /// In memory, for the life of the process.
    case appMemory
    /// In `UserDefaults(suiteName:)` (the standard defaults when `suite` is
    /// nil): small values that outlive the process.
    case userPrefs(suite: String? = nil)
    /// One JSON file, replaced atomically on every committed change and
    /// checked when read (a torn or corrupt file falls back to the last
    /// good state, and the store says so).
    case file(url: URL)
    /// In memory, for one scenario; cleared when the scenario ends
    /// (``DefaultStore/endScenario(id:)``) or on a major version bump.
    case scenarioSession(id: String)
    /// A remote namespace, synced through a ``BackendAdapter``: changes
    /// are queued durably while offline and pushed when reachable;
    /// conflicts resolve last-writer-wins.
    case backend(namespace: String, scenarioID: String? = nil)

    /// The scenario a scope belongs to, if any.
    public var scenarioID: String? {
        switch self {
        case .scenarioSession(let id): return id
        case .backend(_, let id): return id
        case .appMemory, .userPrefs, .file: return nil
        }
    }
}

extension Scope: CustomStringConvertible {
    /// The scope as messages name it: `appMemory`, `file(/path)`, `scenarioSession(checkout)`.
    public var description: String {
        switch self {
        case .appMemory: return "appMemory"
        case .userPrefs(let suite): return "userPrefs(\(suite ?? "standard"))"
        case .file(let url): return "file(\(url.path))"
        case .scenarioSession(let id): return "scenarioSession(\(id))"
        case .backend(let ns, let id): return "backend(\(ns)" + (id.map { ", \($0)" } ?? "") + ")"
        }
    }
}
