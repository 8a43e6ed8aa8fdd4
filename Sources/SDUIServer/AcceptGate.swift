// AcceptGate.swift - the listening socket's guard: a cap on open connections, and a pause when descriptors run out.
#if Server
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Logging
import NIOCore

/// Installed first in the listening channel's pipeline, it decides when
/// the server accepts a connection.
///
/// **The cap.**  At most `maxConnections` accepted connections are open at
/// once.  At the cap the gate holds back the channel's next read, so new
/// connections wait in the kernel's listen backlog (they are neither
/// accepted nor refused) until an open one closes.  The listening channel
/// accepts one connection per read, so the cap is exact.
///
/// **Running out anyway.**  The cap sits below the descriptor limit, but
/// other descriptors (the store's, a lower limit than the cap assumed)
/// can still exhaust it.  Then `accept` fails with EMFILE or ENFILE and
/// leaves the connection in the backlog, so the socket stays readable; SwiftNIO
/// keeps its interest in reads after such an error, and the event loop
/// would call `accept` again at once, forever, on one core, serving
/// nobody.  (NIO's own accept back-off only delays the *next* read, and
/// the read that failed is still pending.)  So on those errors the gate
/// turns the channel's auto-read off, which drops the read interest,
/// and turns it back on after ``backoff``: one failed `accept` per
/// back-off instead of millions.  An episode is logged once when it
/// starts and once when accepting works again, not per failure.
///
/// Runs on the listening channel's event loop only.
final class AcceptGate: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = Channel
    typealias InboundOut = Channel
    typealias OutboundIn = Never
    typealias OutboundOut = Never

    /// How long accepting pauses after running out of descriptors.
    static let backoff = TimeAmount.milliseconds(200)

    let maxConnections: Int
    let logger: Logger
    /// Accepted connections not closed yet.
    private(set) var open = 0
    /// A read was held back at the cap; issue it when a connection closes.
    private var readHeld = false
    /// Auto-read is off after running out of descriptors…
    private var pausedForDescriptors = false
    /// …until this turns it back on.
    private var retry: Scheduled<Void>?
    /// The current out-of-descriptors episode: when it began and how many
    /// accepts failed in it.
    private var exhaustion: (since: NIODeadline, failures: Int)?
    /// When the cap was last reported, so a server that sits at its cap logs
    /// it once a minute, not per connection.
    private var capReported: NIODeadline?

    init(maxConnections: Int, logger: Logger) {
        precondition(maxConnections >= 1)
        self.maxConnections = maxConnections
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // One accept per read keeps the cap exact.
        _ = try? context.channel.syncOptions?.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
    }

    func channelInactive(context: ChannelHandlerContext) {
        retry?.cancel()
        retry = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        open += 1
        if let episode = exhaustion {
            exhaustion = nil
            let seconds = Double((NIODeadline.now() - episode.since).nanoseconds) / 1e9
            logger.notice("accepting connections again after running out of file descriptors",
                          metadata: ["failedAccepts": "\(episode.failures)", "seconds": "\(String(format: "%.1f", seconds))",
                                     "openConnections": "\(open)"])
        }
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        child.closeFuture.hop(to: loop).whenComplete { _ in
            let (gate, context) = bound.value
            gate.closed(context: context)
        }
        context.fireChannelRead(data)
    }

    /// One accepted connection closed: below the cap again, release a held read.
    private func closed(context: ChannelHandlerContext) {
        open -= 1
        guard open < maxConnections else { return }
        if pausedForDescriptors {
            resume(context: context)   // a descriptor just came free: try at once
        } else if readHeld {
            readHeld = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if pausedForDescriptors {
            readHeld = true   // issued by the resume
            return
        }
        guard open < maxConnections else {
            readHeld = true
            let now = NIODeadline.now()
            if capReported.map({ now - $0 >= .seconds(60) }) ?? true {
                capReported = now
                logger.warning("connection cap reached: new connections wait in the listen backlog until one closes",
                               metadata: ["maxConnections": "\(maxConnections)"])
            }
            return
        }
        context.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let io = error as? IOError, Self.outOfResources(io.errnoCode) else {
            context.fireErrorCaught(error)
            return
        }
        if exhaustion == nil {
            exhaustion = (NIODeadline.now(), 1)
            let budget = DescriptorBudget.current()
            logger.error("out of file descriptors: cannot accept connections; pausing accepts until descriptors free up",
                         metadata: ["error": "\(io)", "openConnections": "\(open)",
                                    "RLIMIT_NOFILE": "\(budget.limit.map(String.init) ?? "unlimited")",
                                    "retryEvery": "\(Self.backoff.nanoseconds / 1_000_000) ms"])
        } else {
            exhaustion?.failures += 1
        }
        // Not passed on: NIO's back-off further down would only add a
        // second, longer pause to the next read.
        pause(context: context)
    }

    /// Drops the listening socket's read interest, and schedules ``resume(context:)``.
    private func pause(context: ChannelHandlerContext) {
        pausedForDescriptors = true
        setAutoRead(false, context: context)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        retry?.cancel()
        retry = context.eventLoop.scheduleTask(in: Self.backoff) {
            let (gate, context) = bound.value
            gate.retry = nil
            guard gate.pausedForDescriptors, context.channel.isActive else { return }
            if gate.open < gate.maxConnections { gate.resume(context: context) }
            // else a closing connection resumes
        }
    }

    /// Turns auto-read back on, which retries `accept` at once.
    private func resume(context: ChannelHandlerContext) {
        retry?.cancel()
        retry = nil
        pausedForDescriptors = false
        readHeld = false
        setAutoRead(true, context: context)
    }

    private func setAutoRead(_ on: Bool, context: ChannelHandlerContext) {
        if let options = context.channel.syncOptions {
            try? options.setOption(ChannelOptions.autoRead, value: on)
        } else {
            context.channel.setOption(ChannelOptions.autoRead, value: on).whenFailure { _ in }
        }
    }

    /// Accept errors that mean "not now" rather than a broken socket.
    static func outOfResources(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }
}
#endif
