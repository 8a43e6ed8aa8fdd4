// HTTPConformanceTests.swift - the registry's HTTP/1.1 edges, written as raw bytes: pipelining, Host, repeated parameters, echoes.
#if Server
import Foundation
import Logging
import NIOConcurrencyHelpers
import SDUI
@testable import SDUIServer
import SDUITestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 answer parsed from raw bytes.
struct RawAnswer: Sendable {
    var status: Int
    /// Header fields with lowercased names.
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

/// A blocking TCP client for requests URLSession would not send as they
/// are (no Host, two Hosts, several in one write).  Its socket work runs on
/// a Dispatch thread, off the cooperative pool the server under test uses.
enum RawClient {
    /// Writes `bytes` in one `send` to 127.0.0.1:`port`, reads until the
    /// server closes the connection (or `timeout` seconds pass without a
    /// byte), and returns every answer in order, and whether it closed.
    static func exchange(port: Int, _ bytes: String, timeout: Int = 30) async -> (answers: [RawAnswer], closed: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let (data, closed) = HTTPProbe.roundTrip(port: port, Array(bytes.utf8), timeout: timeout)
                continuation.resume(returning: (parse(data), closed))
            }
        }
    }

    /// Answers with a Content-Length (all the registry sends), one after another.
    static func parse(_ data: Data) -> [RawAnswer] {
        var answers: [RawAnswer] = []
        var rest = data[...]
        let separator = Data("\r\n\r\n".utf8)
        while let end = rest.range(of: separator) {
            let head = String(decoding: rest[rest.startIndex..<end.lowerBound], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { break }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            let bodyEnd = min(rest.endIndex, end.upperBound + length)
            answers.append(RawAnswer(status: status, headers: headers, body: Data(rest[end.upperBound..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return answers
    }
}

@Suite struct HTTPConformanceTests {
    static let modern = RegistryServerTests.modern

    func request(_ target: String, _ headers: [String] = ["Host: x", "X-Primitives: \(modern)"], version: String = "HTTP/1.1") -> String {
        "GET \(target) \(version)\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    /// Two GETs and a request the server refuses, pipelined in one write:
    /// both answers arrive, in order, then the refusal, then EOF.
    @Test func pipelinedAnswersComeBeforeTheRefusalThenTheConnectionCloses() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let r = try await startServer(store)
            let refused: [(String, Int, String)] = [
                ("GET /design-tokens?ids=plain HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 413, "body-too-large"),
                ("POST /screens/home HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 405, "method-not-allowed"),
                ("GET /health HTTP/1.1\r\n\r\n", 400, "bad-host"),
                ("GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "bad-host"),
            ]
            for (third, status, code) in refused {
                let bytes = request("/design-tokens?ids=plain") + request("/screens/home") + third
                let (answers, closed) = await RawClient.exchange(port: r.port, bytes)
                #expect(answers.map(\.status) == [200, 200, status], "\(third)")
                #expect(closed, "\(third)")
                guard answers.count == 3 else { continue }
                #expect(try DesignToken(json: HTTPRegistryTransport.elements(of: answers[0].body, source: "t")[0]).id == "plain")
                #expect(try ScreenPayload(json: answers[1].body).id == "home")
                #expect(answers[2].json?["error"] as? String == code)
                #expect(answers[2].header("connection") == "close" && answers[2].header("cache-control") == "no-store")
            }
            // A refusal with nothing before it is sent at once.
            let alone = await RawClient.exchange(port: r.port, "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n")
            #expect(alone.answers.map(\.status) == [413] && alone.closed)
            await r.stop()
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request without Host, or with two, is a
    /// 400; HTTP/1.0 needs none.
    @Test func hostMustAppearExactlyOnceInHTTP11() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let r = try await startServer(store)
            let p = "X-Primitives: \(Self.modern)"
            let cases: [(String, Int)] = [
                (request("/design-tokens?ids=plain", [p]), 400),
                (request("/design-tokens?ids=plain", ["Host: x", p, "Host: x"]), 400),
                (request("/health", ["Host: a", "host: b"]), 400),
                (request("/health", []), 400),
                (request("/design-tokens?ids=plain", [p, "Connection: close"], version: "HTTP/1.0"), 200),
                (request("/design-tokens?ids=plain", ["Host: x", p, "Connection: close"]), 200),
                (request("/health", ["Host:", "Connection: close"]), 200),   // empty, but there (RFC 9112 §3.2)
            ]
            for (bytes, status) in cases {
                let (answers, _) = await RawClient.exchange(port: r.port, bytes)
                #expect(answers.first?.status == status, "\(bytes)")
                if status == 400 {
                    #expect(answers.first?.json?["error"] as? String == "bad-host")
                    #expect((answers.first?.json?["message"] as? String)?.contains("Host") == true)
                    #expect(answers.first?.header("content-type") == "application/json; charset=utf-8")
                }
            }
            await r.stop()
        }
    }

    /// Every method a route does not declare is 405 with Allow, TRACE and
    /// OPTIONS among them, as PUT and DELETE always were; on the routes
    /// mounted under a prefix too.
    @Test func everyUndeclaredMethodIs405() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let r = try await startServer(store)
            let methods = ["TRACE", "OPTIONS", "PUT", "DELETE", "PATCH", "PROPFIND", "M-SEARCH", "QUERY", "PURGE"]
            for (path, allow) in [("/health", "GET, HEAD"), ("/screens/home", "GET, HEAD"), ("/metrics", "GET, HEAD"),
                                  ("/design-tokens?ids=plain", "GET, HEAD"), ("/events", "POST")] {
                for method in methods + (path == "/events" ? ["GET", "HEAD"] : ["POST"]) {
                    let bytes = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nX-Primitives: \(Self.modern)\r\nConnection: close\r\n\r\n"
                    let (answers, _) = await RawClient.exchange(port: r.port, bytes)
                    #expect(answers.first?.status == 405, "\(method) \(path)")
                    #expect(answers.first?.header("allow") == allow, "\(method) \(path)")
                }
            }
            await r.stop()
        }
    }

    /// A method a path does not take is 405 with the same Allow when the
    /// request carries a body (a Content-Length or a chunked body), on
    /// /events too: the body is not read, and the connection is closed.
    /// A body is 413 only where the method is taken (GET, HEAD) or on a
    /// path the registry does not serve.
    @Test func anUndeclaredMethodWithABodyIs405NotBodyTooLarge() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let r = try await startServer(store)
            let bodies = ["Content-Length: 5\r\n\r\nhello", "Content-Length: 100000\r\n\r\npartial",
                          "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"]
            for (path, allow) in [("/health", "GET, HEAD"), ("/screens/home", "GET, HEAD"), ("/flows/onboarding", "GET, HEAD"),
                                  ("/design-tokens?ids=plain", "GET, HEAD"), ("/events", "POST"), ("//events/", "POST")] {
                for method in ["TRACE", "PUT", "PATCH", "DELETE", "OPTIONS"] + (allow == "POST" ? ["GET"] : ["POST"]) {
                    for body in bodies {
                        let bytes = "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(body)"
                        let (answers, closed) = await RawClient.exchange(port: r.port, bytes)
                        #expect(answers.map(\.status) == [405] && closed, "\(method) \(path) \(body)")
                        #expect(answers.first?.header("allow") == allow, "\(method) \(path) \(body)")
                        #expect(answers.first?.json?["error"] as? String == "method-not-allowed", "\(method) \(path)")
                    }
                }
            }
            for bytes in ["GET /screens/home HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
                          "HEAD /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                          "PUT /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
                          "POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n\r\n"] {
                let (answers, closed) = await RawClient.exchange(port: r.port, bytes)
                #expect(answers.map(\.status) == [413] && closed, "\(bytes)")
                #expect(answers.first?.header("allow") == nil, "\(bytes)")
            }
            await r.stop()
        }
    }

    /// A path's id is percent-decoded before it is checked (RFC 3986 §2.1),
    /// on every route with an id, GET and HEAD: `no%3Asuch.screen` is the
    /// id `no:such.screen` (unknown: 404), `check%6Fut` is `checkout`.  An
    /// id that does not decode (a bad escape, bytes that are not UTF-8) or
    /// decodes to something outside the grammar is 400 bad-id.
    @Test func pathIDsArePercentDecoded() async throws {
        try await withStore(.sqlite) { store in
            _ = try await RegistryImporter(imagePolicy: .anyHTTPSHost).importInto(store, from: RegistryServerFlowsTests.examples)
            let r = try await startServer(store)
            let cases: [(String, Int, String?)] = [
                ("/screens/check%6Fut", 200, nil), ("/screens/%63%68eckout", 200, nil), ("/flows/onboard%69ng", 200, nil),
                ("/screens/no%3Asuch.screen", 404, #"no screen "no:such.screen""#),
                ("/flows/no%3asuch", 404, #"no flow "no:such""#),
                ("/screens/%zz", 400, "does not percent-decode"), ("/screens/a%", 400, "does not percent-decode"),
                ("/screens/%FF", 400, "does not percent-decode"), ("/flows/%C3", 400, "does not percent-decode"),
                ("/screens/a%2Fb", 400, #""a/b" is not a screen id"#), ("/flows/%2E%2E", 400, #"".." is not a flow id"#),
                ("/screens/%00", 400, "is not a screen id"),
            ]
            for method in ["GET", "HEAD"] {
                for (target, status, fragment) in cases {
                    let bytes = "\(method) \(target) HTTP/1.1\r\nHost: x\r\nX-Primitives: \(PrimitiveMap.builtIn.headerValue)\r\n"
                        + "Connection: close\r\n\r\n"
                    let (answers, _) = await RawClient.exchange(port: r.port, bytes)
                    #expect(answers.first?.status == status, "\(method) \(target): \(answers.first?.text ?? "no answer")")
                    if method == "GET", let fragment {
                        #expect((answers.first?.json?["message"] as? String)?.contains(fragment) == true,
                                "\(target): \(answers.first?.text ?? "")")
                        #expect(answers.first?.json?["error"] as? String == (status == 400 ? "bad-id" : "not-found"))
                    }
                }
            }
            await r.stop()
        }
    }

    /// `ids` once: a second `ids` parameter is a 400, not silently ignored.
    @Test func aRepeatedIdsParameterIs400() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let r = try await startServer(store)
            for target in ["/design-tokens?ids=plain&ids=card", "/design-tokens?ids=plain&ids=plain", "/design-tokens?ids=&ids=plain"] {
                let (answers, _) = await RawClient.exchange(port: r.port, request(target, ["Host: x", "X-Primitives: \(Self.modern)",
                                                                                            "Connection: close"]))
                #expect(answers.first?.status == 400, "\(target)")
                #expect(answers.first?.json?["error"] as? String == "bad-ids")
                #expect((answers.first?.json?["message"] as? String)?.contains("ids is given 2 times") == true, "\(target)")
            }
            await r.stop()
        }
    }

    /// RFC 9110 §11.4: `Bearer` and the token are separated by one or more spaces.
    @Test func bearerTokensAfterSeveralSpacesAreAccepted() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let key = try TokenSigner(hs256Secret: Data(repeating: 5, count: 32))
            let r = try await startServer(store) { c in
                c.access = AccessTokenVerifier(verifier: try! TokenVerifier(key: key.verificationKey))
            }
            let token = try AccessTokenIssuer(signer: key).issue(subject: "app", lifetime: 600)
            let cases: [(String, Int)] = [
                ("Bearer \(token)", 200), ("Bearer    \(token)", 200), ("bearer  \(token)", 200), ("BEARER \(token)", 200),
                ("Bearer", 401), ("Bearer    ", 401), ("Bearer \(token) x", 401), ("Bearer\t\(token)", 401),
            ]
            for (authorization, status) in cases {
                let (answers, _) = await RawClient.exchange(port: r.port, request("/design-tokens?ids=plain", [
                    "Host: x", "X-Primitives: \(Self.modern)", "Authorization: \(authorization)", "Connection: close"]))
                #expect(answers.first?.status == status, "\(authorization.prefix(12))")
            }
            await r.stop()
        }
    }

    /// An error shows at most 200 bytes of any one piece of the request.
    @Test func errorsDoNotEchoLargeInput() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            let r = try await startServer(store)
            let long = String(repeating: "x", count: 15_000)
            let longIDs = (0..<50).map { "m\($0)_" + String(repeating: "y", count: 120) }.joined(separator: ",")
            let cases: [(String, [String], Int)] = [
                ("/design-tokens?ids=\(long)", ["Host: x", "X-Primitives: \(Self.modern)"], 400),
                ("/design-tokens?ids=a,\(long)", ["Host: x", "X-Primitives: \(Self.modern)"], 400),
                ("/screens/\(long)", ["Host: x", "X-Primitives: \(Self.modern)"], 400),
                ("/design-tokens?ids=plain", ["Host: x", "X-Primitives: Text@1,\(String(repeating: "Q", count: 3000))@1"], 400),
                ("/design-tokens?ids=plain", ["Host: x", "X-Primitives: " + (0..<255).map { "P\($0)@1" }.joined(separator: ",") + ",Text@x"], 400),
                ("/design-tokens?ids=\(longIDs)", ["Host: x", "X-Primitives: Text@1," + (0..<200).map { "Z\($0)@1" }.joined(separator: ",")], 404),
            ]
            for (target, headers, status) in cases {
                let (answers, _) = await RawClient.exchange(port: r.port, request(target, headers + ["Connection: close"]))
                let a = try #require(answers.first, "\(target.prefix(40))")
                #expect(a.status == status, "\(target.prefix(40)): \(a.text.prefix(300))")
                let message = try #require(a.json?["message"] as? String)
                #expect(message.utf8.count < 700, "\(target.prefix(40)): \(message.utf8.count) bytes")
                if status == 400 { #expect(a.body.count < 1000, "\(target.prefix(40)): \(a.body.count) bytes") }
            }
            await r.stop()
        }
    }

    /// An id with control characters comes back escaped, as `\u0001`, in
    /// the message itself, and log lines show such bytes escaped too.
    @Test func controlCharactersAreEscapedInErrorsAndLogs() async throws {
        try await withStore(.sqlite) { store in
            try await RegistryServerTests.seed(store)
            // A stored row that does not parse, under an id no import would take.
            try await store.publish([StoredToken(id: "evil\u{1B}[2J", version: 1, json: Data("{".utf8), primitiveVersion: 1)])
            let log = CapturedLog()
            var c = RegistryServerConfiguration()
            c.port = 0
            c.requestLogLevel = .info
            let r = try await RegistryServer(store: store, configuration: c, logger: log.logger).start()
            for (target, fragment) in [("/design-tokens?ids=a%01b", #""a\u0001b" is not a token id"#),
                                       ("/design-tokens?ids=ok,%1B%5B31m,x", #""\u001b[31m" is not a token id"#),
                                       ("/design-tokens?ids=%C2%9B1m", #""\u009b1m" is not a token id"#)] {
                let (answers, _) = await RawClient.exchange(port: r.port, request(target, ["Host: x", "X-Primitives: \(Self.modern)",
                                                                                            "Connection: close"]))
                let message = try #require(answers.first?.json?["message"] as? String, "\(target)")
                #expect(message.contains(fragment), "\(target): \(message)")
                #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(target)")
            }
            // A header with a C1 control (the 8-bit CSI) reaches the request log escaped.
            _ = await RawClient.exchange(port: r.port, request("/design-tokens?ids=plain", [
                "Host: x", "X-Primitives: Text@1\u{9B}31m", "Connection: close"]))
            await r.stop()
            let lines = log.lines.withLockedValue { $0 }
            let stored = try #require(lines.first { $0.contains("skipping a stored token") })
            #expect(stored.contains(#"id="evil\u001b[2J""#), "\(stored)")
            let requestLine = try #require(lines.first { $0.contains("Text@1") })
            #expect(requestLine.contains(#"X-Primitives: "Text@1\u009b31m""#), "\(requestLine)")
            for line in lines {
                #expect(!line.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(line)")
            }
        }
    }

}

extension RawAnswer {
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}
#endif
