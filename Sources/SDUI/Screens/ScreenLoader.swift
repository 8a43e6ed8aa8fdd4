// ScreenLoader.swift - loads a screen as an app shows it: registry, disk, tokens, render tree.
import Foundation
import Logging
import SDUICore

/// Loads screens the way an app shows them:
///
/// 1. asks the registry for `GET /screens/{id}` with the app's
///    `X-Primitives`, sending the ETag of the payload it holds so an
///    unchanged screen costs a 304;
/// 2. on a 409 (the app's primitives cannot draw the screen) follows the
///    answer's `fallbackScreenId`, up to ``maxFallbackHops`` hops, refusing
///    a loop;
/// 3. keeps the last good payload of each screen, with its ETag, in the
///    repository's disk cache (the same SQLite file as the tokens), written
///    durably before it is shown, so the next start can draw it offline;
/// 4. when the registry cannot be reached (a `.network` error), uses that
///    payload; with none, the Fallback Pack's screen for the id, if the
///    resolver's context has one;
/// 5. gets the payload's tokens through the repository (one batched
///    request for the misses) and resolves the render tree.
///
/// A screen that came from a 409's fallback is also kept under the id that
/// was asked for, so an offline start shows what the app showed last time.
/// Other registry answers (404, 5xx, a bad body) are thrown: the app decides
/// what to show.  `ScreenLoader` holds no state of its own; it is as safe
/// to share as its repository and resolver.
public struct ScreenLoader: Sendable {
    /// Where tokens come from; its transport and disk cache also serve screens.
    public let repository: TokenRepository
    /// Resolves the payload into a render tree; its context's Fallback Pack is
    /// the last resort offline.
    public let resolver: ScreenResolver
    /// Most 409 fallbacks followed for one load.
    public var maxFallbackHops = 4
    let logger: Logger
    let now: @Sendable () -> Date

    /// A loader over `repository` (its transport and disk cache are the
    /// ones used for screens) and `resolver`.
    public init(repository: TokenRepository, resolver: ScreenResolver,
                logger: Logger = Logger(label: "sdui.screens")) {
        self.repository = repository
        self.resolver = resolver
        self.logger = logger
        self.now = repository.config.now
    }

    /// Loads and resolves screen `id`.
    ///
    /// - Throws: `SDUIError` `.network` when the registry cannot be
    ///   reached and no payload of the screen is cached (nor a Fallback Pack
    ///   screen); `.http` for a registry answer other than 200, 304 and
    ///   409, for a 409 that names no fallback, and for a fallback loop or
    ///   too many hops; `.json`/`.schema` for a payload that does not
    ///   decode.
    public func load(_ id: String) async throws -> LoadedScreen {
        try await resolve(fetch(id))
    }

    /// The first half of ``load(_:)``: the payload to show for `id` and
    /// where it came from (registry, revalidated, disk, Fallback Pack),
    /// without its tokens.  A screen state machine calls this in FETCH and
    /// ``resolve(_:)`` in LOAD.
    ///
    /// - Throws: as ``load(_:)`` does.
    public func fetch(_ id: String) async throws -> FetchedPayload {
        let (payload, source, experiments) = try await payload(for: id)
        return FetchedPayload(requested: id, payload: payload, source: source, experiments: experiments)
    }

    /// The second half of ``load(_:)``: gets the payload's tokens through
    /// the repository (one batched request for the misses) and resolves
    /// the render tree.
    public func resolve(_ fetched: FetchedPayload) async -> LoadedScreen {
        let lookups = await lookups(for: fetched)
        return LoadedScreen(requested: fetched.requested, payload: fetched.payload, source: fetched.source,
                            tree: resolver.resolve(fetched.payload.screenItems, lookups: lookups), lookups: lookups)
    }

    /// The lookups of a fetched payload's tokens: through the repository
    /// (one batched request for the misses), and for a Fallback Pack
    /// screen from that pack's own tokens.  A session that keeps the
    /// ``ScreenRender`` to update it later resolves with these.
    public func lookups(for fetched: FetchedPayload) async -> [String: TokenLookup] {
        let items = fetched.payload.screenItems
        let lookups = await repository.get(items.tokenIDs)
        if fetched.source == .fallbackPack, let pack = resolver.context.fallbackPack {
            // A Fallback Pack screen draws from its own pack's tokens.
            return FallbackSubstitution.lookups(for: items, lookups, pack: pack)
        }
        return lookups
    }

    /// A screen's payload as ``fetch(_:)`` found it.
    public struct FetchedPayload: Sendable {
        /// The id asked for (the payload's own id differs after a 409 fallback).
        public var requested: String
        /// The payload to draw.
        public var payload: ScreenPayload
        /// Where it came from.
        public var source: ScreenSource
        /// The experiments the registry drew it with, when the transport
        /// sent the user's attributes and the registry answered 200
        /// (``FetchedScreen/experiments``); empty otherwise.
        public var experiments: [ServedVariation] = []
    }

    /// The payload to show for `id`, where it came from, and the
    /// experiments the registry drew it with.
    func payload(for id: String) async throws -> (ScreenPayload, ScreenSource, [ServedVariation]) {
        guard let transport = repository.transport else {
            let (p, s) = try offline(id, SDUIError(.network, "no registry configured", input: id), cached: cachedScreen(id))
            return (p, s, [])
        }
        var current = id
        var visited: [String] = [id]
        while true {
            let cached = cachedScreen(current)
            let answer: ScreenFetchResult
            do {
                answer = try await transport.fetchScreen(ScreenFetchRequest(id: current, ifNoneMatch: cached?.etag))
            } catch let e as SDUIError where e.category == .network {
                logger.info("registry unreachable; using the cached screen", metadata: ["screen": "\(current)"])
                let (p, s) = try offline(current, e, cached: cached)
                return (p, s, [])
            }
            switch answer {
            case .fetched(let f):
                await keep(f.json, etag: f.etag, under: visited)
                return (f.payload, .network, f.experiments)
            case .notModified:
                guard let cached, let p = try? ScreenPayload(json: cached.payload, source: repository.disk?.path) else {
                    throw SDUIError(.http, "HTTP 304 for screen \"\(current)\", but its cached payload is gone", input: current)
                }
                // `current` holds it already; the ids that led here by
                // fallback get it too, so an offline start shows it.
                await keep(cached.payload, etag: cached.etag, under: visited.dropLast())
                return (p, .revalidated, [])
            case .incompatible(let fallback, let message):
                guard let fallback else {
                    throw SDUIError(.http, "screen \"\(current)\" needs primitives this app lacks and names no fallback: \(message)",
                                    input: id)
                }
                guard !visited.contains(fallback) else {
                    throw SDUIError(.http, "the fallbacks of screen \"\(id)\" loop: "
                                    + (visited + [fallback]).joined(separator: " → "), input: id)
                }
                guard visited.count <= maxFallbackHops else {
                    throw SDUIError(.http, "screen \"\(id)\" needs more than \(maxFallbackHops) fallbacks: "
                                    + (visited + [fallback]).joined(separator: " → "), input: id)
                }
                logger.notice("screen needs newer primitives; following its fallback",
                              metadata: ["screen": "\(current)", "fallback": "\(fallback)"])
                visited.append(fallback)
                current = fallback
            }
        }
    }

    /// Offline: the cached payload of `id`, else the Fallback Pack's screen
    /// for it, else `error`.
    private func offline(_ id: String, _ error: SDUIError,
                         cached: DiskCache.Screen?) throws -> (ScreenPayload, ScreenSource) {
        if let c = cached {
            do {
                return (try ScreenPayload(json: c.payload, source: repository.disk?.path), .disk)
            } catch {
                logger.warning("ignoring a cached screen that does not decode",
                               metadata: ["screen": "\(id)", "error": "\(error)"])
            }
        }
        if let fallback = FallbackSubstitution(noPayloadFor: id, pack: resolver.context.fallbackPack) {
            return (fallback.screen, .fallbackPack)
        }
        throw SDUIError(.network, "screen \"\(id)\" is not cached and the registry cannot be reached (\(error.message))",
                        input: id)
    }

    /// The cached payload of `id`; nil when none, or the cache failed
    /// (it is only a cache: the failure is logged).
    private func cachedScreen(_ id: String) -> DiskCache.Screen? {
        guard let disk = repository.disk else { return nil }
        do {
            return try disk.screen(id, now: now())
        } catch {
            logger.warning("screen cache read failed", metadata: ["screen": "\(id)", "error": "\(error)"])
            return nil
        }
    }

    /// Keeps a payload under each id in `ids` (the one asked for and the
    /// fallbacks that led to it), durably.
    private func keep(_ json: Data, etag: String?, under ids: some Sequence<String>) async {
        guard let disk = repository.disk else { return }
        let at = now()
        for id in Set(ids).sorted() {
            do {
                try await disk.writeScreen(DiskCache.Screen(id: id, etag: etag ?? "", payload: json, fetchedAt: at), now: at)
            } catch {
                logger.warning("screen cache write failed", metadata: ["screen": "\(id)", "error": "\(error)"])
            }
        }
    }
}
