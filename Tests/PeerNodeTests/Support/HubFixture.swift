#if canImport(Glibc)
import Glibc
#endif
import Bitcoin
import HTLC
import Lightning
@testable import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// The hub in one process, as the client engine, the provider engine and a whole swap meet
/// it: a kernel-validated regtest chain behind a `ChainBackend` that kernel-verifies every
/// broadcast, and a simulated Lightning network, told about each block, whose nodes serve
/// LND's REST API on loopback TCP, reached through `LNDRESTClient`s. The Lightning side
/// reads the chain's height, so hold-invoice HTLCs expire with it.
final class HubFixture: Sendable {
    /// The Lightning side's fixed clock for invoice timestamps, unless a test asks for another.
    static let startTime: UInt64 = 1_767_225_600

    /// A P2TR script nobody in the test controls.
    static let elsewhere = WalletFixture.elsewhere

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

    /// Lightning nodes by name with balances (msat); the Lightning side's clock (fixed at
    /// `startTime` by default) and the chain's fee estimate (none when nil).
    static func start(lightningNodes: [(String, UInt64)],
                      clock: @escaping @Sendable () -> UInt64 = { HubFixture.startTime },
                      feeEstimate: FeeEstimate? = .feeRate(2_000),
                      file: StaticString = #filePath, line: UInt = #line) async throws -> HubFixture {
        let verifier = try makeKernelVerifier(file: file, line: line)
        let chain = try RegtestChain()
        let backend = RegtestChainBackend(chain: chain, verifier: verifier)
        let loop = try EventLoop()
        let network = LightningNetwork(chainTip: { chain.height }, clock: clock)
        var servers: [String: LNDRESTServer] = [:]
        for (name, balance) in lightningNodes {
            try network.addNode(name: name, balanceMsat: balance)
            servers[name] = try await LNDRESTServer.start(network: network, node: name, loop: loop,
                                                          bestBlock: { let best = chain.best; return (best.height, best.hash.hex) },
                                                          publish: LNDRESTHandler.publishing(to: chain))
        }
        if let feeEstimate { chain.setFeeEstimate(feeEstimate) }
        return HubFixture(chain: chain, backend: backend, loop: loop, lightning: network, servers: servers)
    }

    var sleeper: any Sleeper { loop.sleeper }

    /// An `LNDRESTClient` for a node, after its network check.
    func lndClient(_ node: String, subscriptionRetryMilliseconds: UInt64 = 200) async throws -> LNDRESTClient {
        let server = servers[node]!
        let loop = self.loop
        let configuration = LNDRESTClient.Configuration(host: "127.0.0.1", port: server.port, macaroon: server.macaroon,
                                                        network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                        subscriptionRetryMilliseconds: subscriptionRetryMilliseconds)
        return try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper,
                                               connector: { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) })
    }

    /// Mines `count` blocks to `script` (nobody's by default) and tells the Lightning side
    /// of each new height, as the hub does.
    func mine(_ count: Int, to script: Script = HubFixture.elsewhere.script) throws {
        for _ in 0..<count {
            _ = try chain.mine(1, to: script)
            lightning.blockConnected(height: chain.height)
        }
    }

    var height: Int { chain.height }

    func balanceMsat(_ node: String) throws -> UInt64 { try lightning.node(node).balanceMsat }

    func wallet(seed byte: UInt8) throws -> Wallet {
        try Wallet(seed: WalletFixture.seed(byte),
                   configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0, minimumConfirmations: 1),
                   backend: backend)
    }

    /// A follower polling the chain every 50 ms, running until the test ends it.
    /// `pollMilliseconds`: a test that needs the engine to act before its follower has seen
    /// a block sets it long.
    func follower(pollMilliseconds: UInt64 = 50) -> (ChainFollower, Task<Void, Never>) {
        let follower = ChainFollower(backend: backend, sleeper: sleeper,
                                     configuration: ChainFollower.Configuration(pollIntervalMilliseconds: pollMilliseconds))
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

    /// Every transaction in the mempool and in blocks from `height` up with an output
    /// paying `script`.
    func transactions(paying script: Script, fromHeight height: Int) -> [Transaction] {
        var found: [Transaction] = []
        var seen = Set<TransactionID>()
        for blockHeight in height...max(height, chain.height) {
            guard let block = chain.block(atHeight: blockHeight) else { continue }
            for transaction in block.block.transactions where transaction.outputs.contains(where: { $0.scriptPubKey == script }) {
                if seen.insert(transaction.txid).inserted { found.append(transaction) }
            }
        }
        for entry in chain.mempoolEntries() {
            guard let transaction = chain.transaction(entry.entry.txid)?.transaction,
                  transaction.outputs.contains(where: { $0.scriptPubKey == script }),
                  seen.insert(transaction.txid).inserted else { continue }
            found.append(transaction)
        }
        return found
    }

    func confirmations(of txid: TransactionID) -> Int? {
        guard let found = chain.transaction(txid), case .block(_, _, let confirmations, _) = found.location else { return nil }
        return confirmations
    }

    func inMempool(_ txid: TransactionID) -> Bool { chain.mempoolEntry(txid) != nil }

    func shutDown(_ clients: [LNDRESTClient] = []) async {
        for client in clients { await client.shutDown() }
        for server in servers.values { await server.stop() }
        await loop.shutdown()
        chain.close()
    }
}
