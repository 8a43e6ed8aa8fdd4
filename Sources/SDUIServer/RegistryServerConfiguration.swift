// RegistryServerConfiguration.swift - how a registry server runs.
#if Server
import Foundation
import Logging
import UnixSignals
import SDUI

/// How a registry server runs.
public struct RegistryServerConfiguration: Sendable {
    /// The address to listen on (default `127.0.0.1`: loopback only).
    public var host = "127.0.0.1"
    /// 0 picks a free port (see ``RunningRegistry/port``).
    public var port = 8080
    /// Signs every served token (an HS256 or EdDSA JWS); nil serves plain JSON.
    public var signer: TokenSigner?
    /// Bearer-token auth on `/screens` and `/design-tokens`; nil turns it off.
    public var access: AccessTokenVerifier?
    /// `Cache-Control: max-age` of 200 and 304 answers (one day by default).
    public var maxAge = 86_400
    /// How often the server asks the store whether anything was published.
    public var refreshInterval: Duration = .seconds(1)
    /// Idle connections are closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// Most connections open at once.  Beyond it new connections wait in
    /// the listen backlog, neither accepted nor refused, until one closes.
    /// nil: what the descriptor limit (`RLIMIT_NOFILE`) leaves after the
    /// descriptors open at start and a reserve (``DescriptorBudget``).  A
    /// cap that does not fit under the limit is logged as a warning at start.
    public var maxConnections: Int?
    /// Requests whose header fields add up to more are refused with 431.
    public var maxHeaderBytes = 16 * 1024
    /// The API takes no request bodies but POST /events' (up to 256 KiB);
    /// anything above this is refused with 413.
    public var maxBodyBytes = 0
    /// Most ids in one `/design-tokens` request.
    public var maxIDs = 50
    /// A request, head and body, must arrive in full within this long of
    /// its first byte; otherwise it is answered 408 and the connection is
    /// closed (``RequestHeadGate``).  The clock runs only while the request
    /// is being read, not while the server works on it or on the requests
    /// before it.
    public var requestTimeout: Duration = .seconds(30)
    /// Once ``requestRateGrace`` has passed, a request must have arrived at
    /// an average of at least this many bytes per second since its first
    /// byte; otherwise it is answered 408 and the connection closed.  0
    /// turns the rate check off (``requestTimeout`` still holds).
    public var minRequestBytesPerSecond = 1024
    /// How long a request may take before ``minRequestBytesPerSecond`` is
    /// applied: the request must then have at least
    /// `minRequestBytesPerSecond × (elapsed − grace)` bytes.
    public var requestRateGrace: Duration = .seconds(5)
    /// How long `POST /events` keeps events, and how many
    /// (``EventRetention``; by default 90 days and 10 million, applied every
    /// 10 minutes).
    public var eventRetention = EventRetention()
    /// Whether ``RegistryServer/run()`` migrates the store (creates or
    /// upgrades its tables) before serving.  With false it issues no DDL and
    /// only checks that the schema is the one this build serves
    /// (``RegistryStore/verifySchema()``), so a replica needs no DDL rights;
    /// migrate once with `sdui registry migrate`.
    public var migrate = true
    /// `/health` answers 503 when the store has not answered for this long
    /// (nil: ten refresh intervals, and at least 30 s).
    public var healthStaleAfter: Duration?
    /// Level of the one structured log line per request (method, path,
    /// X-Primitives; Authorization is never logged).
    public var requestLogLevel: Logger.Level = .debug
    /// Signals that stop the server gracefully.  None by default: a
    /// library does not own its process; `sdui serve` passes SIGTERM and
    /// SIGINT, and a service that runs the server in its own
    /// `ServiceGroup` handles signals there.
    public var gracefulShutdownSignals: [UnixSignal] = []

    /// The defaults: `127.0.0.1:8080`, unsigned, no auth, `max-age` one day,
    /// a refresh every second, a 60 s idle timeout, a connection cap from the
    /// descriptor limit, 16 KiB of headers, no request bodies, 50 ids per
    /// request, 30 s to read a request and at least 1 KiB/s after its first
    /// 5 s, events kept 90 days and at most 10 million, the store migrated
    /// at start, no signal handling.
    public init() {}
}
#endif
