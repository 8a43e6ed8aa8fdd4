// StringSource.swift - where the app gets its string catalogs: the
// registry when it answers, else the bundle kept in the disk cache, else
// the pack the app shipped.
import Foundation
import SDUICore

/// Finds the string catalogs for the locales an app prefers (its own
/// choice first, then the device's: ``AcceptLanguage``).
///
/// `GET /strings` is sent with `Accept-Language`, revalidated with the ETag
/// of the kept bundle and kept in the disk cache under the path
/// `/strings/<first preferred locale>` (the rule all kept documents follow:
/// `KeptCopy`).  When the registry cannot be reached or answers badly, the
/// kept bundle is used, then the pack's `strings` (the core pack's or the
/// Fallback Pack's, built with `sdui pack build --locales`).
public struct StringSource: Sendable {
    /// Where catalogs came from.
    public enum Origin: String, Sendable, Hashable {
        /// `GET /strings` answered 200 or 304.
        case registry
        /// The bundle kept in the disk cache.
        case diskCache = "disk-cache"
        /// The pack's `strings` member.
        case pack
        /// None anywhere: every `@string.…` shows its key.
        case none
    }

    /// What ``load(now:)`` found.
    public struct Loaded: Sendable {
        /// The catalogs, or nil when there are none.
        public var catalog: StringCatalog?
        /// The locale to render in: the first preferred one (numbers and
        /// plurals follow it even where its catalog falls back), or the
        /// catalogs' default when none is preferred.
        public var locale: String?
        /// Where the catalogs came from.
        public var origin: Origin
        /// Why a better source was not used.
        public var problems: [String]
    }

    /// The registry (nil: offline by design).
    public let transport: (any RegistryTransport)?
    /// Where the bundle is kept between runs.
    public let disk: DiskCache?
    /// The pack the app shipped (core or Fallback Pack), whose `strings` is the last resort.
    public let pack: CorePack?
    /// The locales the app prefers, its own choice first.
    public let preferred: AcceptLanguage

    /// A source over the registry, the disk cache and a pack, each optional.
    public init(preferred: AcceptLanguage, transport: (any RegistryTransport)?, disk: DiskCache? = nil,
                pack: CorePack? = nil) {
        self.preferred = preferred
        self.transport = transport
        self.disk = disk
        self.pack = pack
    }

    /// The disk-cache key of the kept bundle.
    public var cacheKey: String { "/strings/" + (preferred.locales.first ?? "default") }

    /// The catalogs from the best source that has them.
    public func load(now: Date = Date()) async -> Loaded {
        let header = preferred.header
        let found = await KeptCopy<StringBundle>(key: cacheKey, disk: disk, noun: "catalogs")
            .revalidate(now: now, fetch: transport.map { t in
                { try await t.fetchStrings(acceptLanguage: header, ifNoneMatch: $0).bundle }
            })
        var problems = found.problems
        if let bundle = found.document {
            return loaded(bundle.catalog, found.origin == .registry ? .registry : .diskCache, problems)
        }
        if let pack {
            do {
                if let catalog = try pack.strings() { return loaded(catalog, .pack, problems) }
            } catch {
                problems.append("the pack's catalogs cannot be used: \(error)")
            }
        }
        return Loaded(catalog: nil, locale: preferred.locales.first, origin: .none, problems: problems)
    }

    /// What was found, with the locale to render in.
    private func loaded(_ catalog: StringCatalog, _ origin: Origin, _ problems: [String]) -> Loaded {
        Loaded(catalog: catalog, locale: preferred.locales.first ?? catalog.defaultLocale, origin: origin,
               problems: problems)
    }
}
