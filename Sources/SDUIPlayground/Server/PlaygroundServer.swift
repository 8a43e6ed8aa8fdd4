// PlaygroundServer.swift - `sdui dev`'s server: the pages, the folder's
// files, and one WebSocket per open page, with the folder watched and every
// page told what changed.
//
// Safety.  Only files under the folder are served or watched (FolderPath);
// a request whose Host is not the address bound (or, bound to loopback,
// not a loopback name) is refused, so a page of another site cannot reach
// the playground through a DNS name pointed at 127.0.0.1; the WebSocket
// upgrade is refused (403) unless Origin is the page's own origin.  A
// page's messages are bounded in size (a frame or message over
// ``PlaygroundServer/Configuration/maxMessageBytes`` closes the socket with
// 1009) and in rate (over ``PlaygroundServer/Configuration/maxMessagesPerSecond``
// the excess is dropped with one `error` message a second).  Every page
// answer carries a Content-Security-Policy that allows the page's own
// script only, so HTML that slipped through escaping could not run.
//
// The server is a ServiceLifecycle Service: it runs until its task is
// cancelled or the service group shuts down gracefully.
#if Server
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import SDUI
import SDUICore
import SDUIFlow
import ServiceLifecycle

/// The playground's HTTP and WebSocket server over one folder.
package struct PlaygroundServer: Service {
    /// What the server needs.
    package struct Configuration: Sendable {
        /// The folder in the `Examples/` layout.
        package var folder: String
        /// The address to bind (127.0.0.1 by default).
        package var host = "127.0.0.1"
        /// The port (0: any free one).
        package var port = 8790
        /// How the folder is watched.
        package var watch: FolderWatcher.Mode = .native
        /// The most bytes of one message from a page.
        package var maxMessageBytes = 64 << 10
        /// The most messages a second from one page.
        package var maxMessagesPerSecond = 200
        /// The most pages open at once.
        package var maxPages = 64
        /// Origins whose pages may open a WebSocket besides the page's own
        /// (`http://` + its Host), e.g. a proxy's; exact text, none by default.
        package var allowedOrigins: [String] = []

        package init(folder: String) { self.folder = folder }
    }

    let configuration: Configuration
    let root: FolderPath
    let folder: PlaygroundFolder
    let journal: FlowJournal
    let logger: Logger
    let onRunning: @Sendable (Int) async -> Void
    /// Changed paths, to every open page.
    let changes = Broadcast<String, [String]>()
    let pages = PageCount()

    /// A server over `configuration.folder`; reads every file once and opens
    /// the scratch journal (`.sdui-dev/dev.sqlite`).
    ///
    /// - Throws: `SDUIError` when the folder is not there or the journal
    ///   cannot be opened.
    package init(_ configuration: Configuration, logger: Logger,
                 onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws {
        guard (0...65_535).contains(configuration.port) else {
            throw SDUIError(.argument, "a port is 0 to 65535", input: "--port \(configuration.port)")
        }
        self.configuration = configuration
        root = try FolderPath(configuration.folder)
        folder = PlaygroundFolder(root: root)
        let scratch = root.url.appendingPathComponent(".sdui-dev")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw SDUIError(.io, "cannot create the scratch folder: \(error.localizedDescription)", input: scratch.path)
        }
        journal = try FlowJournal(path: scratch.appendingPathComponent("dev.sqlite").path)
        self.logger = logger
        self.onRunning = onRunning
    }

    /// Whether `host` is a loopback address or name.
    package static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) || host.hasPrefix("127.")
    }

    /// Serves until cancelled or shut down gracefully.
    package func run() async throws {
        let app = Application(
            router: router(),
            server: .http1WebSocketUpgrade(webSocketRouter: router(), configuration: .init(
                ws: .init(maxFrameSize: configuration.maxMessageBytes))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "sdui-dev"),
            onServerRunning: { [onRunning] channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        let watcher = FolderWatcher(root: root, folders: PlaygroundFolder.folders, mode: configuration.watch)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            group.addTask { [folder, changes] in
                for await batch in watcher.changes().cancelOnGracefulShutdown() {
                    var paths: [String] = []
                    for path in batch {
                        if path == FolderWatcher.everything {
                            folder.reloadAll()
                            paths.append(path)
                        } else if folder.reload(path) {
                            paths.append(path)
                        }
                    }
                    if !paths.isEmpty { changes.publish(paths, to: "files") }
                }
                watcher.stop()
            }
            try await group.next()
            group.cancelAll()
        }
    }

    // MARK: Routes

    /// The routes: pages, files, assets and the WebSocket.
    func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(HostGate(bound: configuration.host))
        router.get("/") { [folder] _, _ in
            Self.page(PlaygroundPages.index(folder: folder))
        }
        router.get("/view/screen/:id") { [folder] _, context in
            let id = try context.parameters.require("id")
            guard folder.hasFile(of: .screen(id)) else {
                throw HTTPError(.notFound, message: "no screen \"\(id)\" in the folder")
            }
            return Self.page(PlaygroundPages.view(.screen(id), folder: folder))
        }
        router.get("/view/flow/:id") { [folder] _, context in
            let id = try context.parameters.require("id")
            guard folder.hasFile(of: .flow(id)) else {
                throw HTTPError(.notFound, message: "no flow \"\(id)\" in the folder")
            }
            return Self.page(PlaygroundPages.view(.flow(id), folder: folder))
        }
        router.get("/files/**") { [root] request, _ in
            // The raw path, so an encoded "%2e%2e" is judged as what it decodes to.
            let raw = String(request.uri.path.dropFirst("/files/".count))
            guard let relative = raw.removingPercentEncoding, relative.hasSuffix(".json") else {
                throw HTTPError(.notFound, message: "only the folder's .json files are served")
            }
            let url: URL
            do { url = try root.file(relative) } catch let e as SDUIError {
                throw HTTPError(e.category == .argument ? .badRequest : .notFound, message: e.message)
            }
            let data = try FileInput.read(url.path, limit: FileInput.documentLimit)
            return Self.response(.ok, contentType: "application/json; charset=utf-8", body: data)
        }
        router.get("/assets/playground.js") { _, _ in
            Self.response(.ok, contentType: "text/javascript; charset=utf-8", body: Data(PlaygroundAssets.script.utf8))
        }
        router.get("/assets/playground.css") { _, _ in
            Self.response(.ok, contentType: "text/css; charset=utf-8", body: Data(PlaygroundAssets.style.utf8))
        }
        router.ws("/ws", shouldUpgrade: { [pages, configuration] request, _ in
            try Self.checkOrigin(request, allowed: configuration.allowedOrigins)
            _ = try Self.target(request)
            guard pages.open(max: configuration.maxPages) else {
                throw HTTPError(.serviceUnavailable, message: "too many pages open (\(configuration.maxPages))")
            }
            return .upgrade([:])
        }, onUpgrade: { [self] inbound, outbound, context in
            defer { pages.close() }
            try await connect(try Self.target(context.request), inbound: inbound, outbound: outbound)
        })
        return router
    }

    /// The screen or flow a `/ws` request names (`?screen=ID` or `?flow=ID`).
    static func target(_ request: Request) throws -> PlaygroundView.Target {
        let q = request.uri.queryParameters
        switch (q.get("screen"), q.get("flow")) {
        case (let id?, nil) where !id.isEmpty && id.utf8.count <= 256: return .screen(id)
        case (nil, let id?) where !id.isEmpty && id.utf8.count <= 256: return .flow(id)
        default: throw HTTPError(.badRequest, message: "give ?screen=ID or ?flow=ID")
        }
    }

    /// Refuses an upgrade whose `Origin` is not `http://` + its `Host` nor
    /// one of `allowed` (403 to a plain request; the WebSocket library
    /// answers a refused upgrade 400).
    static func checkOrigin(_ request: Request, allowed: [String]) throws {
        guard let origin = request.headers[.origin], let host = request.head.authority,
              origin == "http://\(host)" || allowed.contains(origin) else {
            throw HTTPError(.forbidden, message: "the WebSocket takes only the playground's own pages (Origin)")
        }
    }

    /// Runs one page: its view's messages out, the page's messages and the
    /// folder's changes in, one at a time.
    func connect(_ target: PlaygroundView.Target, inbound: WebSocketInboundStream,
                 outbound: WebSocketOutboundWriter) async throws {
        let view = PlaygroundView(folder: folder, journal: journal, target: target)
        let (out, sink) = AsyncStream.makeStream(of: JSONValue.self, bufferingPolicy: .bufferingNewest(256))
        let files = changes.subscribe("files")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in out { try await outbound.write(.text(message.jsonText)) }
            }
            group.addTask {
                for await paths in files {
                    for m in await view.folderChanged(paths) { sink.yield(m) }
                }
            }
            for m in await view.start() { sink.yield(m) }
            var limiter = RateLimiter(perSecond: configuration.maxMessagesPerSecond)
            for try await message in inbound.messages(maxSize: configuration.maxMessageBytes) {
                switch limiter.take() {
                case .allowed: break
                case .dropped(let tell):
                    if tell {
                        sink.yield(["type": "error", "message": .string(
                            "more than \(configuration.maxMessagesPerSecond) messages a second: the excess is dropped")])
                    }
                    continue
                }
                guard case .text(let text) = message else {
                    sink.yield(["type": "error", "message": "messages are JSON text"])
                    continue
                }
                let value: JSONValue
                do { value = try JSONValue(json: Data(text.utf8), source: "message", maxDepth: 16) } catch {
                    sink.yield(["type": "error", "message": .string("\(error)")])
                    continue
                }
                for m in await view.handle(value) { sink.yield(m) }
            }
            sink.finish()
            group.cancelAll()
        }
    }

    // MARK: Answers

    /// The security headers of every page.
    static let pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        + "img-src https: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// An HTML page with the policy.
    static func page(_ html: String) -> Response {
        response(.ok, contentType: "text/html; charset=utf-8", body: Data(html.utf8))
    }

    /// A response with `body`, the policy and no sniffing.
    static func response(_ status: HTTPResponse.Status, contentType: String, body: Data) -> Response {
        var headers: HTTPFields = [.contentType: contentType, .cacheControl: "no-store"]
        headers[.contentSecurityPolicy] = pagePolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Refuses a request whose Host is not one the server answers to: the
/// address bound, or any loopback name when bound to loopback (421).
struct HostGate<Context: RequestContext>: RouterMiddleware {
    let bound: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority else {
            throw HTTPError(.badRequest, message: "no Host")
        }
        // The host without its port ("[::1]:8790" → "[::1]").
        let host: String
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = String(authority[...close])
        } else {
            host = String(authority.split(separator: ":", maxSplits: 1).first ?? "")
        }
        // Bound to loopback: loopback names only.  A wider bind was asked
        // for (and said so at start): any name that reaches it.
        guard !PlaygroundServer.isLoopback(bound) || PlaygroundServer.isLoopback(host) else {
            throw HTTPError(.misdirectedRequest, message: "this playground answers to \(bound), not \(host)")
        }
        return try await next(request, context)
    }
}

/// How many pages are open, bounded.
final class PageCount: @unchecked Sendable {
    // `count` is read and written under `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Counts one more page; false (and not counted) at `max`.
    func open(max: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard count < max else { return false }
        count += 1
        return true
    }

    /// Counts one page less.
    func close() {
        lock.lock()
        count -= 1
        lock.unlock()
    }
}

/// A page's message rate: at most `perSecond` in any one-second window.
struct RateLimiter {
    enum Verdict: Equatable {
        case allowed
        /// Dropped; `tell` for the first dropped of its window.
        case dropped(tell: Bool)
    }

    let perSecond: Int
    private var windowStart = ContinuousClock.now
    private var taken = 0
    private var told = false

    init(perSecond: Int) { self.perSecond = perSecond }

    /// Takes one message now.
    mutating func take(at now: ContinuousClock.Instant = .now) -> Verdict {
        if now - windowStart >= .seconds(1) {
            windowStart = now
            taken = 0
            told = false
        }
        guard taken < perSecond else {
            defer { told = true }
            return .dropped(tell: !told)
        }
        taken += 1
        return .allowed
    }
}
#endif
