// RegistryServer+FlowsTests.swift - GET /flows/{id} and POST /events on loopback, over both stores.
#if Server
import Foundation
import SDUI
import SDUIFlow
@testable import SDUIServer
import SDUITestSupport
import Testing

@Suite struct RegistryServerFlowsTests: RegistryServerFixtures {
    static let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
    static let all = PrimitiveMap.builtIn.headerValue

    @Test(arguments: StoreKind.allCases)
    func flowsAnswer200Then304AndRefuseWhatTheyCannotServe(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let r = try await RegistryImporter(imagePolicy: .anyHTTPSHost).importInto(store, from: Self.examples)
            #expect(r.flows == 1)
            let server = try await startServer(store)
            let ok = try await get(server, "flows/onboarding", ["X-Primitives": Self.all])
            #expect(ok.status == 200)
            let etag = try #require(ok.header("ETag"))
            #expect(ok.header("Vary") == "X-Primitives")
            let flow = try FlowDefinition(json: ok.body)
            #expect(flow.id == "onboarding" && flow.start == "screen_welcome")
            #expect(try await get(server, "flows/onboarding", ["X-Primitives": Self.all, "If-None-Match": etag]).status == 304)
            #expect(try await get(server, "flows/onboarding", [:]).status == 400)
            #expect(try await get(server, "flows/nope", ["X-Primitives": Self.all]).status == 404)
            #expect(try await get(server, "flows/bad!id", ["X-Primitives": Self.all]).status == 400)
            let old = try await get(server, "flows/onboarding", ["X-Primitives": "Column@3,Text@4"])
            #expect(old.status == 409)
            #expect(String(decoding: old.body, as: UTF8.self).contains("Choice@1"))
            await server.stop()
        }
    }

    /// The client's loader: fetched, then revalidated by ETag (304), then,
    /// with the registry gone, the last good definition kept in the journal.
    @Test func theLoaderKeepsTheLastGoodFlowForOfflineStarts() async throws {
        try await withStore(.sqlite) { store in
            _ = try await RegistryImporter(imagePolicy: .anyHTTPSHost).importInto(store, from: Self.examples)
            let server = try await startServer(store)
            let journal = try FlowJournal(path: Fixtures.temporaryDirectory().appendingPathComponent("j.sqlite").path)
            let loader = FlowLoader(registry: server.baseURL, journal: journal, client: patientClient)
            let (a, sa) = try await loader.load("onboarding")
            #expect(sa == .network && a.id == "onboarding")
            let (b, sb) = try await loader.load("onboarding")
            #expect(sb == .revalidated && b == a)
            await #expect(throws: SDUIError.self) { _ = try await loader.load("nope") }   // 404
            await server.stop()
            let (c, sc) = try await loader.load("onboarding")
            #expect(sc == .offline && c.contentHash == a.contentHash)
            await #expect(throws: SDUIError.self) { _ = try await loader.load("never-fetched") }
        }
    }

    @Test func importRefusesAFlowThatDoesNotValidateNamingScreenAndPath() throws {
        let dir = Fixtures.temporaryDirectory()
        for sub in ["tokens", "flows"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data(#"{"id":"f","version":1,"start":"a","screens":[{"id":"a","blocks":[],"next":[{"to":"zz"}]}]}"#.utf8)
            .write(to: dir.appendingPathComponent("flows/f.json"))
        do {
            _ = try RegistryImporter(imagePolicy: .anyHTTPSHost).load(dir)
            Issue.record("imported")
        } catch let e as RegistryError {
            #expect(e.message.contains("f (f.json): flow: error: $.screens[0].next[0].to (screen \"a\")"), "\(e.message)")
        }
    }

    func post(_ r: RunningRegistry, _ body: String) async throws -> HTTPClientResponse {
        try await HTTPClient(timeout: 30, maxBodyBytes: 1 << 20).post(
            URL(string: "events", relativeTo: r.baseURL)!.absoluteURL, body: Data(body.utf8),
            headers: ["Content-Type": "application/json"])
    }

    static func event(_ id: String) -> String {
        #"{"id":"\#(id)","name":"screen_view","flowId":"f","flowVersion":"1","screen":"a","timestamp":1,"seq":1,"userId":"u","properties":{}}"#
    }

    @Test(arguments: StoreKind.allCases)
    func eventsAreStoredOncePerID(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let server = try await startServer(store)
            let first = try await post(server, #"{"events":[\#(Self.event("a")),\#(Self.event("b")),\#(Self.event("c"))]}"#)
            #expect(first.status == 200)
            #expect(String(decoding: first.body, as: UTF8.self) == #"{"accepted":3,"duplicates":0}"#)
            let again = try await post(server, #"{"events":[\#(Self.event("b")),\#(Self.event("d")),\#(Self.event("a"))]}"#)
            #expect(String(decoding: again.body, as: UTF8.self) == #"{"accepted":1,"duplicates":2}"#)
            #expect(try await store.events(limit: 100).map(\.id) == ["a", "b", "c", "d"])
            // Bad batches are refused whole, naming the place.
            for (body, fragment) in [("{", "json"), (#"{"events":[]}"#, "1 to 500"),
                                     (#"{"events":[{"id":"x"}]}"#, #"events[0] (id \"x\"): \"name\""#),
                                     (#"{"events":[\#(Self.event("e")),{"id":"y","name":"n","flowId":"f","userId":"u","timestamp":-1}]}"#,
                                      #"events[1] (id \"y\"): \"timestamp\""#)] {
                let bad = try await post(server, body)
                #expect(bad.status == 400, "\(body)")
                #expect(String(decoding: bad.body, as: UTF8.self).contains(fragment), "\(String(decoding: bad.body, as: UTF8.self))")
            }
            #expect(try await store.events(limit: 100).count == 4)
            #expect(try await get(server, "events", [:]).status == 405)
            let metrics = String(decoding: try await get(server, "metrics", [:]).body, as: UTF8.self)
            #expect(metrics.contains("sdui_events_received_total 4"))
            #expect(metrics.contains("sdui_events_duplicate_total 2"))
            await server.stop()
        }
    }

    /// U+0000 in an indexed field (PostgreSQL's text cannot hold it) is
    /// the client's fault on both stores: a 400 that lists each refused
    /// event by index, id and field, nothing of the batch stored; and the
    /// stores refuse it themselves with the same words.
    @Test(arguments: StoreKind.allCases)
    func aNulInAnIndexedFieldIsRefusedNamingEventAndField(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let server = try await startServer(store)
            let fields = ["id", "name", "flowId", "userId"]
            for field in fields {
                var bad: [String: Any] = ["id": "bad-\(field)", "name": "screen_view", "flowId": "f", "userId": "u", "timestamp": 1]
                bad[field] = "a\u{0}b"
                let badJSON = String(decoding: try JSONSerialization.data(withJSONObject: bad, options: [.sortedKeys]), as: UTF8.self)
                let answer = try await post(server, #"{"events":[\#(Self.event("ok1")),\#(badJSON),\#(Self.event("ok2"))]}"#)
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status == 400, "\(field): \(text)")
                let doc = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any], "\(text)")
                #expect(doc["error"] as? String == "bad-events")
                #expect((doc["message"] as? String)?.contains(#"events[1]"#) == true, "\(text)")
                #expect((doc["message"] as? String)?.contains(#""\#(field)" contains U+0000"#) == true, "\(text)")
                let refused = try #require(doc["refused"] as? [[String: Any]], "\(text)")
                #expect(refused.count == 1)
                #expect(refused.first?["index"] as? Int == 1 && refused.first?["field"] as? String == field, "\(text)")
                #expect(refused.first?["id"] as? String == (field == "id" ? "a\u{0}b" : "bad-\(field)"), "\(text)")
            }
            #expect(try await store.events(limit: 100).isEmpty, "nothing of a refused batch is stored")
            // Two bad events in one batch: both listed.
            let two = try await post(server, #"{"events":[{"id":"n1","name":"a\u0000","flowId":"f","userId":"u","timestamp":1},"#
                                         + #"\#(Self.event("fine")),{"id":"n2","name":"n","flowId":"f","userId":"\u0000","timestamp":1}]}"#)
            let doc = try JSONSerialization.jsonObject(with: two.body) as? [String: Any]
            #expect((doc?["refused"] as? [[String: Any]])?.compactMap { $0["index"] as? Int } == [0, 2])
            #expect((doc?["message"] as? String)?.contains("2 of 3 events refused") == true)
            // The store itself refuses such an event, whoever calls it.
            do {
                _ = try await store.storeEvents([StoredEvent(id: "s", name: "x\u{0}", flowID: "f", userID: "u", timestamp: 1,
                                                             json: Data("{}".utf8))])
                Issue.record("stored a NUL")
            } catch let e as RegistryError {
                #expect(e.code == .invalid && e.message.contains(#"events[0] (id "s"): "name" contains U+0000"#), "\(e)")
            }
            let metrics = String(decoding: try await get(server, "metrics", [:]).body, as: UTF8.self)
            #expect(metrics.contains("sdui_events_refused_total 6"), "\(metrics)")
            await server.stop()
        }
    }

    /// An optional member of another type than schemas/events.json gives
    /// (`flowVersion` not a string, `screen` neither a string nor null,
    /// `seq` not a non-negative integer, `properties` not an object) is
    /// refused as a bad required one is: a 400 that names the event and
    /// the member, in `refused`, and nothing of the batch stored.  What
    /// the schema allows (`seq` 2.0, `screen` null, members left out) is
    /// stored.
    @Test func optionalMembersOfAnotherTypeAreRefusedNamingEventAndMember() async throws {
        try await withStore(.sqlite) { store in
            let server = try await startServer(store)
            let base = #""name":"screen_view","flowId":"f","timestamp":1,"userId":"u""#
            let wrong: [(String, String)] = [
                ("flowVersion", "1"), ("flowVersion", "null"), ("flowVersion", "{}"), ("screen", "5"), ("screen", #"["a"]"#),
                ("screen", "false"), ("seq", "-1"), ("seq", "1.5"), ("seq", #""1""#), ("seq", "null"),
                ("properties", "[]"), ("properties", #""x""#), ("properties", "null"), ("timestamp", "1.5"),
            ]
            for (member, value) in wrong {
                var members = ["id": #""bad""#, "name": #""screen_view""#, "flowId": #""f""#, "timestamp": "1", "userId": #""u""#]
                members[member] = value
                let bad = "{" + members.sorted { $0.key < $1.key }.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",") + "}"
                let answer = try await post(server, #"{"events":[\#(Self.event("ok1")),\#(bad),\#(Self.event("ok2"))]}"#)
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status == 400, "\(member): \(value): \(text)")
                let doc = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any], "\(text)")
                #expect((doc["message"] as? String)?.contains(#"events[1] (id "bad"): "\#(member)" must be"#) == true,
                        "\(text)")
                let refused = try #require(doc["refused"] as? [[String: Any]], "\(text)")
                #expect(refused.count == 1 && refused.first?["index"] as? Int == 1, "\(text)")
                #expect(refused.first?["field"] as? String == member && refused.first?["id"] as? String == "bad", "\(text)")
            }
            #expect(try await store.events(limit: 10).isEmpty, "nothing of a refused batch is stored")
            let fine = [#"{"id":"a",\#(base),"seq":2.0,"screen":null}"#, #"{"id":"b",\#(base)}"#,
                        #"{"id":"c",\#(base),"flowVersion":"","seq":0,"screen":"s","properties":{"k":[1,{"x":null}]}}"#,
                        #"{"id":"d","name":"n","flowId":"f","timestamp":9.2e18,"userId":"u"}"#]
            let ok = try await post(server, #"{"events":[\#(fine.joined(separator: ","))]}"#)
            #expect(ok.status == 200, "\(String(decoding: ok.body, as: UTF8.self))")
            #expect(try await store.events(limit: 10).map(\.id) == ["a", "b", "c", "d"])
            await server.stop()
        }
    }

    /// `id` and `name` are 1 to 128 characters (Unicode scalars), as the
    /// schema's maxLength counts them, on both stores: 50 × "€" (150 bytes)
    /// and 128 × "€" are taken, 129 characters are refused.
    @Test(arguments: StoreKind.allCases)
    func idAndNameLengthsCountCharactersNotBytes(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let server = try await startServer(store)
            let euro50 = String(repeating: "€", count: 50), euro128 = String(repeating: "€", count: 128)
            func event(_ id: String, _ name: String) -> String {
                #"{"id":"\#(id)","name":"\#(name)","flowId":"f","timestamp":1,"userId":"u"}"#
            }
            let ok = try await post(server, #"{"events":[\#(event(euro50, euro50)),\#(event(euro128, euro128))]}"#)
            #expect(ok.status == 200, "\(String(decoding: ok.body, as: UTF8.self))")
            let stored = try await store.events(limit: 10)
            #expect(stored.map(\.id) == [euro50, euro128] && stored.map(\.name) == [euro50, euro128])
            for (id, name, field) in [(String(repeating: "€", count: 129), "n", "id"), ("x", String(repeating: "a", count: 129), "name"),
                                      ("y", String(repeating: "€", count: 129), "name")] {
                let bad = try await post(server, #"{"events":[\#(event(id, name))]}"#)
                let doc = try JSONSerialization.jsonObject(with: bad.body) as? [String: Any]
                #expect(bad.status == 400 && (doc?["refused"] as? [[String: Any]])?.first?["field"] as? String == field)
                #expect((doc?["message"] as? String)?.contains("1 to 128 characters") == true, "\(doc ?? [:])")
            }
            #expect(try await store.events(limit: 10).count == 2)
            await server.stop()
        }
    }

    /// `POST /events` takes `application/json` only (parameters and case
    /// aside): anything else is 415 with `Accept-Post`, nothing stored.
    @Test func eventsTakeJSONOnly() async throws {
        try await withStore(.sqlite) { store in
            let server = try await startServer(store)
            let body = #"{"events":[\#(Self.event("ct"))]}"#
            func post(_ contentType: String?) async -> RawAnswer? {
                let type = contentType.map { "Content-Type: \($0)\r\n" } ?? ""
                let request = "POST /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(type)"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                return await RawClient.exchange(port: server.port, request).answers.first
            }
            for type in [nil, "text/plain", "application/x-www-form-urlencoded", "application/jsonx", "text/json"] {
                let a = await post(type)
                #expect(a?.status == 415 && a?.json?["error"] as? String == "unsupported-media-type", "\(type ?? "none")")
                #expect(a?.header("accept-post") == "application/json")
            }
            #expect(try await store.events(limit: 10).isEmpty)
            for type in ["application/json", "Application/JSON; charset=utf-8"] {
                #expect(await post(type)?.status == 200, "\(type)")
            }
            await server.stop()
        }
    }

    /// Events the registry refuses for good (a NUL in `userId`) are
    /// dropped by the uploader, logged and counted, and every other event,
    /// before and after them in the queue, is stored in the same flush: the
    /// refusal names them, so one refused batch and one resent batch do it.
    @Test(arguments: StoreKind.allCases)
    func theUploaderDropsAndCountsTheEventsTheRegistryRefuses(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let server = try await startServer(store)
            let journal = try FlowJournal(path: Fixtures.temporaryDirectory().appendingPathComponent("j.sqlite").path)
            let bad: Set<Int> = [7, 20]
            let events = (0..<30).map { i in
                Data(#"{"flowId":"f","id":"g\#(i)","name":"screen_view","timestamp":1,"userId":"\#(bad.contains(i) ? #"u\u0000"# : "u")"}"#.utf8)
            }
            try journal.commit(events: events)
            let log = CapturedLog()
            let up = EventUploader(journal: journal, configuration: .init(
                endpoint: URL(string: "events", relativeTo: server.baseURL)!.absoluteURL,
                retry: RetryPolicy(initialDelay: .milliseconds(5), maxDelay: .milliseconds(20), maxAttempts: 3, jitter: .none)),
                client: patientClient, logger: log.logger)
            let report = try await up.flush()
            #expect(report.rejected == 2 && up.rejectedTotal == 2, "\(report)")
            #expect(report.events == 28 && report.batches == 1, "\(report)")
            #expect(try journal.stats().events == 0)
            let good = (0..<30).filter { !bad.contains($0) }.map { "g\($0)" }
            #expect(try await store.events(limit: 100).map(\.id) == good)
            let lines = log.lines.withLockedValue { $0 }.filter { $0.contains("the server refused an event") }
            #expect(lines.count == 2 && lines.allSatisfy { $0.contains(#""userId" contains U+0000"#) }, "\(lines)")
            let metrics = String(decoding: try await get(server, "metrics", [:]).body, as: UTF8.self)
            // Once, unless a loaded machine made the client give up on the
            // first answer and send the batch again: each time, its two events.
            let value = { (name: String) in
                metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
            }
            let batches = try #require(value("sdui_event_batches_refused_total"), "\(metrics)")
            #expect(batches >= 1 && value("sdui_events_refused_total") == 2 * batches, "\(metrics)")
            await server.stop()
        }
    }

    /// A flow session's outbox, sent by the uploader to the real server:
    /// every event arrives, each stored once, also when a flush is repeated.
    @Test(arguments: StoreKind.allCases)
    func aSessionsEventsReachTheRegistryOnce(kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let server = try await startServer(store)
            let journal = try FlowJournal(path: Fixtures.temporaryDirectory().appendingPathComponent("j.sqlite").path)
            let flow = try FlowDefinition(json: Data(contentsOf: Self.examples.appendingPathComponent("flows/onboarding.json")))
            let session = try FlowSession(definition: flow, journal: journal, configuration: .init(userID: "u9"))
            try session.start()
            for _ in 0..<60 { _ = try session.next(); _ = try session.back() }
            let ids = try journal.peek(maxEvents: 1000, maxBytes: 1 << 30).map {
                try JSONDecoder().decode(FlowEvent.self, from: $0.json).id
            }
            let up = EventUploader(journal: journal, configuration: .init(
                endpoint: URL(string: "events", relativeTo: server.baseURL)!.absoluteURL), client: patientClient)
            let report = try await up.flush()
            #expect(report.events == ids.count && report.batches == 2)
            #expect(try await store.events(limit: 10_000).map(\.id) == ids)
            await server.stop()
        }
    }
}
#endif
