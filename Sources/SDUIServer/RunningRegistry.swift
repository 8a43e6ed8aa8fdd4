// RunningRegistry.swift - a registry server running in a task.
#if Server
import Foundation

/// A registry server running in a task.
public final class RunningRegistry: Sendable {
    /// The server that is running.
    public let server: RegistryServer
    let task: Task<Void, Error>
    /// The port it listens on: the one bound, also when the configuration
    /// asked for 0.
    public let port: Int
    /// `http://host:port/`.
    public let baseURL: URL

    init(server: RegistryServer, task: Task<Void, Error>, host: String, port: Int) {
        self.server = server
        self.task = task
        self.port = port
        let literal = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host   // IPv6
        baseURL = URL(string: "http://\(literal):\(port)/")!
    }

    /// Stops serving (gracefully) and waits for the server to finish.
    public func stop() async {
        await server.shutdown()
        _ = await task.result
    }
}
#endif
