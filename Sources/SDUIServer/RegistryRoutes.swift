// RegistryRoutes.swift - the registry's paths and the methods each takes: one table for the router and the request gate.
#if Server
import HTTPTypes
import HummingbirdCore

/// The registry's paths and the methods each answers, in one table.  The
/// router answers every other method on a path 405 with `Allow`
/// (``RegistryServer/routes(context:)``), and the ``RequestHeadGate``
/// gives the same answer to such a request that carries a body, before
/// the body is read; so a method a path does not take is 405 whether or
/// not a body comes with it.
enum RegistryRoutes {
    /// One path and what it takes.
    struct Route: Sendable, Equatable {
        /// The path as the router has it (`screens/:id`: `:id` is any one
        /// path component).
        let path: String
        /// The methods it answers; every other is 405.
        let methods: [HTTPRequest.Method]

        /// The path as Hummingbird reports an endpoint and the OpenAPI
        /// document names it: `/screens/{id}`, `/strings/{locale}`.
        var templatePath: String {
            "/" + path.split(separator: "/").map { $0.first == ":" ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
        }

        init(_ path: String, _ methods: [HTTPRequest.Method]) {
            self.path = path
            self.methods = methods
        }

        /// The `Allow` header of a 405: the methods, comma-separated.
        var allow: String { methods.map(\.rawValue).joined(separator: ", ") }

        /// The message of a 405 on this path.
        var notAllowedMessage: String {
            methods == [.post] ? "/\(path) answers POST only"
                : "this resource answers \(methods.map(\.rawValue).joined(separator: " and ")) only"
        }

        /// Whether the route answers `method` (its name as the request line
        /// has it).
        func takes(_ method: String) -> Bool { methods.contains { $0.rawValue == method } }
    }

    /// Every route the registry serves.  Only `POST /events` takes a body.
    static let all: [Route] = [
        Route("health/live", [.get, .head]), Route("health/ready", [.get, .head]), Route("health", [.get, .head]),
        Route("metrics", [.get, .head]), Route("screens/:id", [.get, .head]), Route("design-tokens", [.get, .head]),
        Route("flows/:id", [.get, .head]), Route("experiments", [.get, .head]), Route("strings", [.get, .head]),
        Route("strings/:locale", [.get, .head]), Route("events", [.post]),
    ]

    /// The route a request target reaches when the routes are served at the
    /// root (as ``RegistryServer/run()`` serves them), matched as
    /// Hummingbird's router matches: the target's path (``URI``), split at
    /// `/` with empty components skipped, each component equal to the
    /// route's or `:id`; nil when none matches (the router's 404).
    static func route(forTarget target: String) -> Route? {
        let components = URI(target).path.split(separator: "/", omittingEmptySubsequences: true)
        return all.first { route in
            let pattern = route.path.split(separator: "/")
            return pattern.count == components.count
                && zip(pattern, components).allSatisfy { p, c in p.first == ":" || p == c }
        }
    }
}
#endif
