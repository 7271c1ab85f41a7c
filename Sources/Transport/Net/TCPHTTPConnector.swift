/// The HTTP client's connector over TCP on the event loop: how the node reaches Bitcoin
/// Core's RPC and LND's REST port.
///
///     let client = HTTPClient(configuration: config, loop: loop)
///
/// No connect timeout of its own: the client's per-request deadline covers the connect and
/// cancels it.
public struct TCPHTTPConnector: Sendable {
    public let loop: EventLoop
    /// Bytes read ahead per connection before reading pauses.
    public var readBufferLimit: Int

    public init(loop: EventLoop, readBufferLimit: Int = TCPConnection.defaultReadBufferLimit) {
        self.loop = loop
        self.readBufferLimit = readBufferLimit
    }

    public func connect(host: String, port: Int) async throws -> any ByteStream {
        try await TCPConnection.connect(host: host, port: port, loop: loop, readBufferLimit: readBufferLimit)
    }

    /// The closure `HTTPClient` takes.
    public var connector: HTTPClient.Connector {
        { host, port in try await self.connect(host: host, port: port) }
    }
}

extension HTTPClient {
    /// A client that connects over TCP on `loop` and runs its timeouts on the loop's timers.
    public convenience init(configuration: Configuration = Configuration(), loop: EventLoop) {
        self.init(configuration: configuration, sleeper: loop.sleeper, connector: TCPHTTPConnector(loop: loop).connector)
    }
}
