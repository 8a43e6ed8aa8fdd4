// PlaygroundServerTests.swift - `sdui dev`'s server on 127.0.0.1: the pages,
// the files it serves and refuses, the Host and Origin checks, and a page's
// WebSocket end to end: a render, a step's patch, a file saved on disk
// arriving as a patch, a broken file as a banner, and the size and rate
// bounds.
#if Server
import Foundation
import HTTPTypes
import HummingbirdWSClient
import NIOCore
import Logging
import SDUICore
import SDUITestSupport
@testable import SDUIPlayground
import ServiceLifecycle
import Testing

@Suite(.serialized) struct PlaygroundServerTests {
    /// Runs a playground over a fresh copy of the examples for `body`.
    static func withServer(configure: (inout PlaygroundServer.Configuration) -> Void = { _ in },
                           _ body: (Int, PlaygroundFixture) async throws -> Void) async throws {
        let fixture = try PlaygroundFixture()
        defer { fixture.remove() }
        var c = PlaygroundServer.Configuration(folder: fixture.dir.path)
        c.port = 0
        // The test client sends its own Origin, the socket's URL without a port, first.
        c.allowedOrigins = ["ws://127.0.0.1"]
        configure(&c)
        var logger = Logger(label: "test.dev")
        logger.logLevel = .error
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let server = try PlaygroundServer(c, logger: logger) { sink.yield($0) }
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        let running = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureError(message: "the server did not start") }
        do {
            try await body(port, fixture)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw error
        }
        await group.triggerGracefulShutdown()
        _ = try await running.value
    }

    /// A raw GET of `target` with `headers`, as a browser (or an attacker) sends it.
    static func get(_ port: Int, _ target: String, host: String? = nil, headers: [String] = []) async -> String {
        let lines = ["GET \(target) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"] + headers
        return await HTTPProbe.rawResponse(port: port, lines.joined(separator: "\r\n") + "\r\n\r\n", timeout: 10)
    }

    /// The status of a raw answer.
    static func status(_ answer: String) -> Int? {
        answer.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test func servesTheIndexAndPagesWithTheirPolicy() async throws {
        try await Self.withServer { port, _ in
            let index = await Self.get(port, "/")
            #expect(Self.status(index) == 200)
            #expect(index.contains(#"href="/view/screen/checkout""#) && index.contains(#"href="/view/flow/onboarding""#))
            #expect(index.lowercased().contains("content-security-policy: default-src 'none'; script-src 'self'"))
            let page = await Self.get(port, "/view/screen/checkout")
            #expect(Self.status(page) == 200)
            #expect(page.contains(#"id="sdui-dev-screen""#) && page.contains(#"<script src="/assets/playground.js">"#))
            #expect(!page.contains("<script>"), "an inline script would be refused by the policy")
            #expect(Self.status(await Self.get(port, "/view/screen/nope")) == 404)
            #expect(Self.status(await Self.get(port, "/view/flow/nope")) == 404)
            let script = await Self.get(port, "/assets/playground.js")
            #expect(Self.status(script) == 200 && script.lowercased().contains("content-type: text/javascript"))
        }
    }

    @Test func servesOnlyTheFolderFiles() async throws {
        try await Self.withServer { port, fixture in
            try FileManager.default.createSymbolicLink(atPath: fixture.dir.appendingPathComponent("tokens/out.json").path,
                                                       withDestinationPath: "/etc/passwd")
            try fixture.write("../secret-\(fixture.dir.lastPathComponent).json", "{\"secret\": true}")
            defer { try? FileManager.default.removeItem(at: fixture.dir.deletingLastPathComponent()
                .appendingPathComponent("secret-\(fixture.dir.lastPathComponent).json")) }
            let ok = await Self.get(port, "/files/tokens/checkout_header.json")
            #expect(Self.status(ok) == 200 && ok.contains("\"checkout_header\""))
            let secret = "secret-\(fixture.dir.lastPathComponent).json"
            for target in ["/files/../\(secret)", "/files/%2e%2e/\(secret)", "/files/tokens/..%2f..%2f\(secret)",
                           "/files/%2fetc%2fpasswd", "/files//etc/passwd", "/files/tokens/out.json",
                           "/files/.sdui-dev/dev.sqlite", "/files/tokens/%2e%2e/%2e%2e/\(secret)", "/../../etc/passwd",
                           "/files/tokens/checkout_header.json%00.json"] {
                let answer = await Self.get(port, target)
                #expect(Self.status(answer).map { $0 >= 400 } == true, "\(target): \(answer.prefix(200))")
                #expect(!answer.contains("secret") || !answer.contains("true}") , "\(target) leaked the file")
                #expect(!answer.contains("root:x:0"), "\(target) leaked /etc/passwd")
            }
        }
    }

    @Test func refusesAHostItIsNotBoundTo() async throws {
        try await Self.withServer { port, _ in
            #expect(Self.status(await Self.get(port, "/", host: "evil.example:\(port)")) == 421)
            #expect(Self.status(await Self.get(port, "/", host: "localhost:\(port)")) == 200)
        }
    }

    @Test func theWebSocketTakesOnlyThePagesOwnOrigin() async throws {
        try await Self.withServer { port, _ in
            let upgrade = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="]
            let none = await HTTPProbe.rawResponse(port: port, (["GET /ws?screen=checkout HTTP/1.1", "Host: 127.0.0.1:\(port)"]
                + upgrade).joined(separator: "\r\n") + "\r\n\r\n", timeout: 5)
            // A refused upgrade: no socket (the WebSocket library answers 400).
            #expect(Self.status(none) == 400, "\(none.prefix(200))")
            let evil = await HTTPProbe.rawResponse(port: port, (["GET /ws?screen=checkout HTTP/1.1", "Host: 127.0.0.1:\(port)",
                                                                 "Origin: http://evil.example"] + upgrade)
                .joined(separator: "\r\n") + "\r\n\r\n", timeout: 5)
            #expect(Self.status(evil) == 400)
            // Without the upgrade, the same request says why.
            let plain = await Self.get(port, "/ws?screen=checkout", headers: ["Origin: http://evil.example"])
            #expect(Self.status(plain) == 403 && plain.contains("Origin"))
            let good = await HTTPProbe.rawResponse(port: port, (["GET /ws?screen=checkout HTTP/1.1", "Host: 127.0.0.1:\(port)",
                                                                 "Origin: http://127.0.0.1:\(port)"] + upgrade)
                .joined(separator: "\r\n") + "\r\n\r\n", timeout: 2)
            #expect(Self.status(good) == 101, "\(good.prefix(200))")
            let noTarget = await HTTPProbe.rawResponse(port: port, (["GET /ws HTTP/1.1", "Host: 127.0.0.1:\(port)",
                                                                     "Origin: http://127.0.0.1:\(port)"] + upgrade)
                .joined(separator: "\r\n") + "\r\n\r\n", timeout: 5)
            #expect(Self.status(noTarget) == 400)
            #expect(Self.status(await Self.get(port, "/ws", headers: ["Origin: http://127.0.0.1:\(port)"])) == 400)
        }
    }

    /// A page's socket: what it received, collected until `done` says so.
    static func page(_ port: Int, _ query: String, maxWait: Duration = .seconds(15),
                     _ script: @escaping @Sendable (WebSocketOutboundWriter, JSONValue, Int) async throws -> Bool)
        async throws -> (messages: [JSONValue], close: WebSocketCloseFrame?) {
        let received = Locked<[JSONValue]>([])
        var logger = Logger(label: "test.ws")
        logger.logLevel = .error
        let close = try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(port)/ws?\(query)",
            configuration: .init(maxFrameSize: 8 << 20),
            logger: logger
        ) { inbound, outbound, _ in
            let deadline = ContinuousClock.now + maxWait
            for try await message in inbound.messages(maxSize: 8 << 20) {
                guard case .text(let text) = message else { continue }
                let value = try JSONValue(json: Data(text.utf8))
                let count = received.withLock { $0.append(value); return $0.count }
                if try await script(outbound, value, count) || ContinuousClock.now > deadline {
                    try await outbound.close(.normalClosure, reason: nil)
                    break
                }
            }
        }
        return (received.withLock { $0 }, close)
    }

    @Test func aPageGetsItsRenderAStepsPatchAndTheFilesItUses() async throws {
        try await Self.withServer { port, fixture in
            let fixtureBox = fixture
            let stage = Locked(0)
            let (messages, _) = try await Self.page(port, "screen=checkout") { outbound, m, _ in
                switch (stage.withLock { $0 }, m["type"]?.stringValue) {
                case (0, "state"):
                    stage.withLock { $0 = 1 }
                    // The header token's title, saved on disk.
                    try fixtureBox.replace("tokens/checkout_header.json", #""text": "@string.checkout.title""#, with: #""text": "Kasse""#)
                case (1, "patch"):
                    stage.withLock { $0 = 2 }
                    try fixtureBox.write("tokens/checkout_header.json", "{ broken")
                case (2, "state") where m["errors"]?.arrayValue?.isEmpty == false:
                    stage.withLock { $0 = 3 }
                    try fixtureBox.replace("tokens/checkout_header.json", "{ broken", with:
                        try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Examples/tokens/checkout_header.json"),
                                   encoding: .utf8))
                case (3, "state") where m["errors"]?.arrayValue?.isEmpty == true:
                    stage.withLock { $0 = 4 }
                    try await outbound.write(.text(#"{"type":"select","path":"0"}"#))
                case (4, "node"):
                    return true
                default: break
                }
                return false
            }
            #expect(stage.withLock { $0 } == 4, "\(messages.map { $0["type"]?.stringValue ?? "" })")
            #expect(messages.first?["type"] == "render")
            let patches = messages.filter { $0["type"] == "patch" }
            #expect(patches.first?["changes"]?.arrayValue?.first?["html"]?.stringValue?.contains("Kasse") == true)
            #expect(messages.filter { $0["type"] == "render" }.count == 1, "a file saved redrew the whole page")
            let banner = messages.compactMap { $0["errors"]?.arrayValue?.first }.first
            #expect(banner?["file"] == "tokens/checkout_header.json" && banner?["rule"] == "json", "\(String(describing: banner))")
        }
    }

    @Test func anOversizedMessageClosesTheSocket() async throws {
        try await Self.withServer { port, _ in
            let (_, close) = try await Self.page(port, "screen=checkout") { outbound, m, _ in
                if m["type"] == "state" {
                    try await outbound.write(.text(#"{"type":"store","key":"k","value":""# + String(repeating: "x", count: 70_000) + "\"}"))
                }
                return false
            }
            #expect(close?.closeCode == .messageTooLarge, "\(String(describing: close))")
        }
    }

    @Test func messagesOverTheRateAreDroppedWithOneError() async throws {
        try await Self.withServer(configure: { $0.maxMessagesPerSecond = 20 }) { port, _ in
            let sent = Locked(false)
            let (messages, _) = try await Self.page(port, "screen=checkout", maxWait: .seconds(10)) { outbound, m, _ in
                if m["type"] == "state", !sent.withLock({ $0 }) {
                    sent.withLock { $0 = true }
                    for _ in 0..<60 { try await outbound.write(.text(#"{"type":"select","path":"0"}"#)) }
                }
                return m["type"] == "error"
            }
            let errors = messages.filter { $0["type"] == "error" }
            #expect(errors.first?["message"]?.stringValue?.contains("20 messages a second") == true, "\(errors)")
            // Dropped messages get no answer: fewer node answers than sent.
            #expect(messages.filter { $0["type"] == "node" }.count <= 20)
        }
    }
    @Test func badMessagesAreAnsweredAndTheServerGoesOn() async throws {
        try await Self.withServer { port, _ in
            let garbage = ["not json", "[1,2", "{}", "[]", "null", "{\"type\": 7}", String(repeating: "[", count: 5000),
                           "{\"type\":\"tap\",\"path\":\"" + String(repeating: "9.", count: 200) + "9\"}",
                           "{\"type\":\"input\",\"path\":\"0\",\"value\":1e999}", "{\"type\":\"options\",\"textScale\":\"big\"}"]
            let sent = Locked(false)
            let (messages, _) = try await Self.page(port, "screen=checkout") { outbound, m, _ in
                if m["type"] == "state", !sent.withLock({ $0 }) {
                    sent.withLock { $0 = true }
                    for text in garbage { try await outbound.write(.text(text)) }
                    try await outbound.write(.binary(ByteBuffer(bytes: [0, 1, 2])))
                    try await outbound.write(.text(#"{"type":"select","path":"0"}"#))
                }
                return m["type"] == "node"
            }
            #expect(messages.filter { $0["type"] == "error" }.count >= garbage.count, "\(messages.map { $0["type"] ?? "" })")
            #expect(messages.last?["type"] == "node")
            // And the server still serves.
            #expect(Self.status(await Self.get(port, "/")) == 200)
        }
    }
}
#endif
