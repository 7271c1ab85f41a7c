import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// A `RegtestHub` started in-process (the type `peernode-regtest` runs), driven over
/// loopback TCP only: JSON-RPC with the node's HTTP client, each Lightning node with the
/// node's own LND REST client.
final class RegtestHubHarness {
    static let credentials = HTTPBasicCredentials(user: "hub", password: "test")

    let loop: EventLoop
    let hub: RegtestHub
    let rpc: RPCTestClient
    private var clients: [LNDRESTClient] = []

    /// - Parameter housekeepingMilliseconds: how often the hub expires Lightning invoices
    ///   (tip changes reach the Lightning side from the chain, without the timer).
    /// - Parameter tlsDirectory: where the LND REST servers' tls.cert files go (each then
    ///   serves TLS); nil: plain HTTP.
    /// - Parameter clock: the hub's wall clock in unix seconds (nil: the real one), and
    ///   `clockRate` its simulated seconds per real second.
    /// - Parameter pkarrRelays: how many test pkarr relays the hub serves.
    init(housekeepingMilliseconds: UInt64, tlsDirectory: String? = nil, clock: (@Sendable () -> Int64)? = nil,
         clockRate: Int = 1, pkarrRelays: Int = 0) async throws {
        _ = try makeKernelVerifier()
        loop = try EventLoop()
        let configuration = RegtestHub.Configuration(credentials: Self.credentials, lightningTLSDirectory: tlsDirectory,
                                                     housekeepingMilliseconds: housekeepingMilliseconds,
                                                     authFailureDelayMilliseconds: 1, clock: clock, clockRate: clockRate,
                                                     pkarrRelays: pkarrRelays)
        hub = try await RegtestHub.start(configuration, loop: loop)
        rpc = RPCTestClient(port: hub.rpc.port, credentials: Self.credentials, loop: loop)
    }

    /// `hub_ln_addnode` over the RPC; the reply describes the node's REST endpoint.
    func addNode(_ name: String, balanceSat: Int, file: StaticString = #filePath, line: UInt = #line) async throws -> OrderedJSON {
        try await rpc.call("hub_ln_addnode", "[\"\(name)\",\(balanceSat)]", file: file, line: line)
    }

    /// An LND client for a node as `hub_ln_addnode` described it: over TLS trusting only
    /// its `tls_cert_path` when it has one, else plain HTTP (or, with `plainHTTP`, plain
    /// HTTP whatever the node serves).
    func client(_ node: OrderedJSON, plainHTTP: Bool = false) async throws -> LNDRESTClient {
        let port = try XCTUnwrap(node["rest_port"]?.intValue)
        let macaroon = try XCTUnwrap(node["macaroon_hex"]?.stringValue.flatMap { [UInt8](hex: $0) })
        let configuration = LNDRESTClient.Configuration(host: "127.0.0.1", port: port, macaroon: macaroon,
                                                        network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                        subscriptionRetryMilliseconds: 2_000)
        let loop = self.loop
        var connector: HTTPClient.Connector = { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
        if !plainHTTP, let certificate = node["tls_cert_path"]?.stringValue {
            connector = TLSHTTPConnector(loop: loop, certificatePath: certificate).connector
        }
        let client = try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper, connector: connector)
        clients.append(client)
        return client
    }

    /// Mines through Core's `generatetoaddress`, paying the hub's own address.
    func generate(_ count: Int) async throws {
        let hashes = try await rpc.call("generatetoaddress", "[\(count),\"\(hub.hubChain.wallet.address)\"]")
        XCTAssertEqual(hashes.arrayValue.count, count)
    }

    func height() async throws -> Int {
        let count = try await rpc.call("getblockcount")
        return try XCTUnwrap(count.intValue)
    }

    /// The Lightning part of `hub_balances`, checked to add up, and the chain part checked
    /// against every block subsidy so far (the chain's coins are exactly what was mined).
    func balances(file: StaticString = #filePath, line: UInt = #line) async throws -> OrderedJSON {
        let balances = try await rpc.call("hub_balances", file: file, line: line)
        let lightning = try XCTUnwrap(balances["lightning"], file: file, line: line)
        var sum = 0
        for member in lightning["nodes"]?.keys ?? [] { sum += lightning["nodes"]?[member]?.intValue ?? -1 }
        sum += lightning["in_flight_msat"]?.intValue ?? -1
        sum += lightning["fees_collected_msat"]?.intValue ?? -1
        XCTAssertEqual(lightning["total_msat"]?.intValue, sum, file: file, line: line)
        XCTAssertEqual(lightning["funded_msat"]?.intValue, sum, "Lightning money conserved", file: file, line: line)
        XCTAssertEqual(lightning["conserved"], .bool(true), file: file, line: line)

        let height = try XCTUnwrap(balances["height"]?.intValue)
        let mined = (0...height).dropFirst().reduce(Int64(0)) { $0 + RegtestParameters.subsidy(atHeight: $1) }
        XCTAssertEqual(balances["chain"]?["total"], .amount(mined), "chain coins conserved", file: file, line: line)
        return lightning
    }

    func shutDown() async {
        for client in clients { await client.shutDown() }
        await rpc.shutDown()
        await hub.stop()
        await loop.shutdown()
    }
}
