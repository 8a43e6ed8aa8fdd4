// TokenRepository+Batching.swift - misses and revalidations coalesced into batched registry requests.
import Foundation
import Logging
import SDUICore

/// The batcher: misses from every caller gather in one open
/// batch, revalidations of stale tokens in another; a batch goes when its
/// coalescing window ends or it holds `batchSize` ids, and an id already in
/// flight is joined, never asked twice.  One request per batch; its answer
/// is verified, checked, made durable and handed out (``store(_:refused:for:now:ttl:)``).
extension TokenRepository {
    /// A batch being gathered or fetched.
    ///
    /// `@unchecked Sendable`: created, read and changed only on the
    /// repository actor; tasks hold it only to hand it back to the actor.
    final class Batch: @unchecked Sendable {
        var ids: [String] = []
        var known: [String: (DesignToken, String)] = [:]
        var task: Task<[String: TokenLookup], Never>?
        /// Set once the batch may go: its window ended or it is full.
        var fired = false
        var waiting: CheckedContinuation<Void, Never>?
        let revalidation: Bool
        init(revalidation: Bool) { self.revalidation = revalidation }
    }


    /// Adds id to an open batch (or joins the batch already fetching it).
    func enqueue(_ id: String, known: (DesignToken, String)?) -> Batch {
        if let b = inFlight[id] { return b }
        let revalidation = known != nil
        var batch = revalidation ? openRevalidation : openMiss
        if batch == nil {
            let b = Batch(revalidation: revalidation)
            b.task = Task { await self.run(b) }
            let window = config.coalescingWindow
            Task {
                try? await Task.sleep(for: window)
                self.fire(b)
            }
            batch = b
            if revalidation { openRevalidation = b } else { openMiss = b }
        }
        let b = batch!
        b.ids.append(id)
        if let known { b.known[id] = known }
        inFlight[id] = b
        if b.ids.count >= config.batchSize { fire(b) }  // full: send at once
        return b
    }

    /// Closes the batch to new ids and lets its fetch start.
    func fire(_ b: Batch) {
        if openMiss === b { openMiss = nil }
        if openRevalidation === b { openRevalidation = nil }
        guard !b.fired else { return }
        b.fired = true
        b.waiting?.resume()
        b.waiting = nil
    }

    /// Waits until the batch fires, then fetches it.  (Not woken by
    /// cancellation, which would also cancel the request.)
    func run(_ b: Batch) async -> [String: TokenLookup] {
        if !b.fired {
            await withCheckedContinuation { c in b.waiting = c }
        }
        let result = await fetch(b)
        for id in b.ids where inFlight[id] === b { inFlight[id] = nil }
        return result
    }

    /// One request for the batch, and what each id comes to.
    func fetch(_ b: Batch) async -> [String: TokenLookup] {
        let ids = b.ids
        guard let transport else { return fallback(b, error: SDUIError(.network, "no registry configured")) }
        let request = TokenFetchRequest(
            ids: ids, ifNoneMatch: b.revalidation ? ETag.batch(ids.map { b.known[$0]!.1 }) : nil)
        requestCount += 1
        let started = ContinuousClock.now
        let response: TokenFetchResponse
        do {
            response = try await transport.fetch(request)
        } catch {
            let e = error as? SDUIError ?? SDUIError(.network, "\(error)")
            logger.warning("token fetch failed", metadata: ["ids": "\(ids.count)", "error": "\(e)"])
            return fallback(b, error: e)
        }
        metrics.fetched(in: ContinuousClock.now - started)
        let now = config.now()
        switch response {
        case .notModified(let maxAge):
            let until = now.addingTimeInterval(maxAge ?? config.defaultTTL)
            do { try await disk?.renew(ids, fetchedAt: now, expiresAt: until) } catch {
                diskFailed("refresh", error)
            }
            var out: [String: TokenLookup] = [:]
            for id in ids {
                guard let (t, _) = b.known[id] else {
                    out[id] = .unavailable(SDUIError(.http, "304 for a token the client does not hold"))
                    continue
                }
                meta[id]?.expires = until
                try? memory.put(t)
                out[id] = found(t, .revalidated)
            }
            return out
        case .tokens(let elements, let maxAge, let refused):
            for e in refused { logger.warning("refused a fetched token", metadata: ["error": "\(e)"]) }
            return await store(elements, refused: refused, for: b, now: now, ttl: maxAge ?? config.defaultTTL)
        }
    }

    /// Verifies, checks and persists a 200 answer, then hands tokens out.
    func store(_ elements: [Data], refused: [SDUIError], for b: Batch, now: Date,
                       ttl: TimeInterval) async -> [String: TokenLookup] {
        let wanted = Set(b.ids)
        var tokens: [String: DesignToken] = [:]
        var failures: [SDUIError] = refused
        let policy = TokenPolicy(limits: config.limits, imagePolicy: config.imagePolicy)
        for element in elements {
            do {
                let json: Data
                if let verifier = config.verifier {
                    guard element.first != UInt8(ascii: "{") else {
                        throw SDUIError(.signature, "unsigned token in the answer, but a signature is required")
                    }
                    json = try verifier.verify(compact: element, source: "registry")
                } else {
                    guard element.first == UInt8(ascii: "{") else {
                        throw SDUIError(.signature, "signed token in the answer, but no verifier is configured")
                    }
                    json = element
                }
                let t = try policy.admit(json, source: "registry").mapError(\.error).get()
                if wanted.contains(t.id) { tokens[t.id] = t }
            } catch let e as SDUIError {
                failures.append(e)
                logger.warning("refused a fetched token", metadata: ["error": "\(e)"])
            } catch {
                failures.append(SDUIError(.unknown, "\(error)"))
            }
        }
        let until = now.addingTimeInterval(ttl)
        // Each token was parsed and checked once, into its own storage (the
        // one copy from the answer); its ETag is hashed there, and SQLite
        // reads it there (the second copy, into the file).
        let rows = tokens.values.map { (token: $0, etag: ETag.of(token: $0)) }
        // Durable before it is handed out; the commit's fsync runs off the
        // cooperative pool while this actor waits.
        do { try await disk?.write(tokens: rows, fetchedAt: now, expiresAt: until, now: now) } catch {
            // Shown anyway: refusing a verified token helps nobody.
            diskFailed("write", error)
        }
        var out: [String: TokenLookup] = [:]
        for (t, etag) in rows {
            let changed = meta[t.id].map { $0.etag != etag } ?? false
            try? memory.put(t)
            meta[t.id] = (until, etag)
            if changed { notify(t.id, t) }
            out[t.id] = found(t, .network)
        }
        for id in b.ids where out[id] == nil {
            if let (t, _) = b.known[id] { out[id] = found(t, .stale); continue }
            let reason = failures.first ?? SDUIError(.notFound, "the registry has no token \"\(id)\"")
            out[id] = lookupFailure(reason)
        }
        return out
    }

    /// Every id of a failed batch: its stale copy, else offline or unavailable.
    func fallback(_ b: Batch, error: SDUIError) -> [String: TokenLookup] {
        var out: [String: TokenLookup] = [:]
        for id in b.ids {
            if let (t, _) = b.known[id] { out[id] = found(t, .stale) } else { out[id] = lookupFailure(error) }
        }
        return out
    }
}
