import Bitcoin
import HTLC
import Lightning
@testable import PeerNode
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// The hub as a swap meets it, in one process: a kernel-validated regtest chain behind a
/// `ChainBackend` that kernel-verifies every broadcast, and a simulated Lightning network
/// whose nodes serve LND's REST API on loopback TCP, reached through `LNDRESTClient`s.
/// The Lightning side reads the chain's height, so hold-invoice HTLCs expire with it.
final class SwapHubFixture: Sendable {
    static let startTime: UInt64 = 1_767_225_600

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

    /// A chain mined to `height` (to nobody's wallet) and Lightning nodes with balances (msat).
    static func start(lightningNodes: [(String, UInt64)], file: StaticString = #filePath, line: UInt = #line) async throws -> SwapHubFixture {
        let verifier = try makeKernelVerifier(file: file, line: line)
        let chain = try RegtestChain()
        let backend = RegtestChainBackend(chain: chain, verifier: verifier)
        let loop = try EventLoop()
        let box = ClockBox()
        let network = LightningNetwork(chainTip: { chain.height }, clock: { box.now })
        var servers: [String: LNDRESTServer] = [:]
        for (name, balance) in lightningNodes {
            try network.addNode(name: name, balanceMsat: balance)
            servers[name] = try await LNDRESTServer.start(network: network, node: name, loop: loop,
                                                          blockHash: { chain.tipHash.description })
        }
        chain.setFeeEstimate(.feeRate(2_000))
        return SwapHubFixture(chain: chain, backend: backend, loop: loop, lightning: network, servers: servers)
    }

    /// An `LNDRESTClient` for a node, after its network check.
    func lndClient(_ node: String) async throws -> LNDRESTClient {
        let server = servers[node]!
        let loop = self.loop
        let configuration = LNDRESTClient.Configuration(host: "127.0.0.1", port: server.port, macaroon: server.macaroon,
                                                        network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                        subscriptionRetryMilliseconds: 200)
        return try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper,
                                               connector: { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) })
    }

    /// A P2TR script nobody in the test controls.
    static let elsewhere = Address.p2tr(outputKey: try! PrivateKey([UInt8](repeating: 0x77, count: 32)).xOnlyPublicKey.bytes)

    /// Mines `count` blocks to `script` (nobody's by default) and tells the Lightning side
    /// of each new height, as the hub does.
    func mine(_ count: Int, to script: Script = SwapHubFixture.elsewhere.script) throws {
        for _ in 0..<count {
            _ = try chain.mine(1, to: script)
            lightning.blockConnected(height: chain.height)
        }
    }

    var height: Int { chain.height }

    func balanceMsat(_ node: String) throws -> UInt64 { try lightning.node(node).balanceMsat }

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

    func shutDown(_ clients: [LNDRESTClient]) async {
        for client in clients { await client.shutDown() }
        for server in servers.values { await server.stop() }
        await loop.shutdown()
        chain.close()
    }
}

/// The hub's wall clock for invoice timestamps, fixed for the test.
private final class ClockBox: Sendable {
    private let clock = Mutex(SwapHubFixture.startTime)
    var now: UInt64 { clock.withLock { $0 } }
}
