#if canImport(Glibc)
import Glibc
#endif
import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// The hub in one process for the client engine's tests: a chain whose blocks Bitcoin
/// Core's kernel validates (every broadcast's scripts verified by the kernel too), the
/// Lightning simulator told about each block, and LND REST servers for its nodes with
/// clients over loopback TCP.
final class ClientHub: Sendable {
    let chain: RegtestChain
    let backend: RegtestChainBackend
    let loop: EventLoop
    let lightning: LightningNetwork
    let servers: [String: LNDRESTServer]

    private init(chain: RegtestChain, backend: RegtestChainBackend, loop: EventLoop, lightning: LightningNetwork,
                 servers: [String: LNDRESTServer]) {
        self.chain = chain
        self.backend = backend
        self.loop = loop
        self.lightning = lightning
        self.servers = servers
    }

    /// Lightning nodes by name with balances in sat.
    static func start(nodes: [(String, UInt64)], file: StaticString = #filePath, line: UInt = #line) async throws -> ClientHub {
        let verifier = try makeKernelVerifier(file: file, line: line)
        let chain = try RegtestChain()
        let backend = RegtestChainBackend(chain: chain, verifier: verifier)
        let loop = try EventLoop()
        let lightning = LightningNetwork(chainTip: { chain.height }, clock: { UInt64(time(nil)) })
        var servers: [String: LNDRESTServer] = [:]
        for (name, sat) in nodes {
            try lightning.addNode(name: name, balanceMsat: sat * 1_000)
            servers[name] = try await LNDRESTServer.start(network: lightning, node: name, loop: loop,
                                                          blockHash: { chain.tipHash.hex })
        }
        return ClientHub(chain: chain, backend: backend, loop: loop, lightning: lightning, servers: servers)
    }

    var sleeper: any Sleeper { loop.sleeper }

    func lnd(_ node: String) async throws -> LNDRESTClient {
        let server = servers[node]!
        let loop = self.loop
        let configuration = LNDRESTClient.Configuration(host: "127.0.0.1", port: server.port, macaroon: server.macaroon,
                                                        network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                        subscriptionRetryMilliseconds: 500)
        return try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper,
                                               connector: { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) })
    }

    /// Mines to a script nobody in the test controls (or `script`), telling Lightning.
    func mine(_ count: Int, to script: Script = WalletFixture.elsewhere.script) throws {
        try chain.mine(count, to: script)
        lightning.blockConnected(height: chain.height)
    }

    func wallet(seed byte: UInt8) throws -> Wallet {
        try Wallet(seed: WalletFixture.seed(byte),
                   configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0, minimumConfirmations: 1),
                   backend: backend)
    }

    /// A follower polling the chain every 50 ms, running until the test ends it.
    func follower() -> (ChainFollower, Task<Void, Never>) {
        let follower = ChainFollower(backend: backend, sleeper: sleeper,
                                     configuration: ChainFollower.Configuration(pollIntervalMilliseconds: 50))
        return (follower, Task { await follower.run() })
    }

    /// Every transaction in the mempool and in blocks from `height` up.
    func transactions(fromHeight height: Int) -> [Transaction] {
        var all = chain.mempoolEntries().compactMap { chain.transaction($0.entry.txid)?.transaction }
        for h in max(height, 0)...chain.height {
            all += chain.block(atHeight: h)?.block.transactions ?? []
        }
        return all
    }

    func shutDown(_ clients: LNDRESTClient...) async {
        for client in clients { await client.shutDown() }
        for server in servers.values { await server.stop() }
        await loop.shutdown()
        chain.close()
    }
}

/// A Unix clock a test sets.
final class ClientTestClock: UnixClock {
    private let now: Mutex<UInt64>
    init(_ start: UInt64 = UInt64(time(nil))) { now = Mutex(start) }
    var nowUnix: UInt64 { now.withLock { $0 } }
    func advance(by seconds: UInt64) { now.withLock { $0 += seconds } }
}

/// The wall clock.
struct ClientWallClock: UnixClock {
    var nowUnix: UInt64 { UInt64(time(nil)) }
}

/// Fails instead of hanging when an async step does not finish in time.
func clientWithin<T: Sendable>(seconds: Double = 30, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            XCTFail("did not finish within \(seconds) s")
            throw ClientTestTimeout()
        }
        return value
    }
}

struct ClientTestTimeout: Error {}

/// Polls `condition` every 50 ms until it holds, failing after `seconds`.
func clientEventually(seconds: Double = 20, _ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    try await clientWithin(seconds: seconds) {
        while try await !condition() { try await Task.sleep(nanoseconds: 50_000_000) }
    }
}
