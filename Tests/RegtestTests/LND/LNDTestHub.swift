import Bitcoin
import Lightning
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// A simulated network with an LND REST server per node on loopback TCP, and clients
/// for them: the hub's Lightning side as the node meets it.
final class LNDTestHub: Sendable {
    let world: SimWorld
    let loop: EventLoop
    let servers: [String: LNDRESTServer]

    private init(world: SimWorld, loop: EventLoop, servers: [String: LNDRESTServer]) {
        self.world = world
        self.loop = loop
        self.servers = servers
    }

    /// Nodes by name with their starting balances in msat.
    static func start(_ nodes: [(String, UInt64)]) async throws -> LNDTestHub {
        let world = SimWorld()
        let loop = try EventLoop()
        var servers: [String: LNDRESTServer] = [:]
        for (name, balance) in nodes {
            try world.network.addNode(name: name, balanceMsat: balance)
            let network = world.network
            servers[name] = try await LNDRESTServer.start(network: network, node: name, loop: loop,
                                                          bestBlock: { (network.blockHeight, String(repeating: "0f", count: 32)) })
        }
        return LNDTestHub(world: world, loop: loop, servers: servers)
    }

    var network: LightningNetwork { world.network }

    var connector: HTTPClient.Connector {
        let loop = self.loop
        return { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
    }

    func configuration(_ node: String, network: Network = .regtest, macaroon: [UInt8]? = nil,
                       retryMilliseconds: UInt64 = 2_000, port: Int? = nil) -> LNDRESTClient.Configuration {
        let server = servers[node]!
        return LNDRESTClient.Configuration(host: "127.0.0.1", port: port ?? server.port,
                                           macaroon: macaroon ?? server.macaroon, network: network,
                                           requestTimeoutMilliseconds: 10_000,
                                           subscriptionRetryMilliseconds: retryMilliseconds)
    }

    /// A client that passed the network check.
    func client(_ node: String, retryMilliseconds: UInt64 = 2_000) async throws -> LNDRESTClient {
        try await LNDRESTClient.connect(configuration: configuration(node, retryMilliseconds: retryMilliseconds),
                                        sleeper: loop.sleeper, connector: connector)
    }

    /// A raw HTTP client for shape tests, sending the node's macaroon unless told not to.
    func rawClient(macaroonHex: String?) -> HTTPClient {
        var headers = HTTPHeaders()
        if let macaroonHex { headers.add(name: "Grpc-Metadata-macaroon", value: macaroonHex) }
        return HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 10_000, headers: headers),
                          sleeper: loop.sleeper, connector: connector)
    }

    func shutDown(_ clients: LNDRESTClient...) async {
        for client in clients { await client.shutDown() }
        for server in servers.values { await server.stop() }
        await loop.shutdown()
    }
}

/// The next element of a stream, within a time limit (nil when the stream ended).
func lndNext<Element: Sendable>(_ iterator: LNDIterator<Element>, seconds: Double = 10) async throws -> Element? {
    try await within(seconds: seconds) { try await iterator.next() }
}

/// An AsyncThrowingStream iterator shared with the timeout task above: one reader at a time.
final class LNDIterator<Element: Sendable>: @unchecked Sendable {
    // Only `lndNext` touches it, one call at a time, each awaited before the next.
    private var iterator: AsyncThrowingStream<Element, any Error>.Iterator

    init(_ stream: AsyncThrowingStream<Element, any Error>) {
        iterator = stream.makeAsyncIterator()
    }

    func next() async throws -> Element? {
        try await iterator.next()
    }
}

/// A count shared with server handlers.
final class LNDTestCounter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// The error a test expects, or a failure naming what came instead.
func lndExpectError<T>(_ body: () async throws -> T, file: StaticString = #filePath, line: UInt = #line) async -> (any Error)? {
    do {
        _ = try await body()
        XCTFail("expected an error", file: file, line: line)
        return nil
    } catch {
        return error
    }
}
