import Bitcoin
import Synchronization
import Transport

/// The chain side of the hub as the RPC methods see it: the chain, the relay policy it was
/// made with, the hub's own coins (to fund addresses), the auto-miner, and the counters
/// Core reports that the chain does not keep (`mempool_sequence`).
public final class HubChain: Sendable {
    public let chain: RegtestChain
    public let policy: MempoolPolicy
    public let wallet: HubWallet
    public let autoMiner: AutoMiner
    /// Whether the hub acts as a Core run with `-txindex` (the default, what peernode
    /// asks for): `getindexinfo` reports it, and `getrawtransaction` finds a confirmed
    /// transaction without its block hash only with it.
    public let txIndex: Bool
    private let sequence = Atomic<Int>(0)

    /// - Parameters:
    ///   - policy: the policy `chain` was created with (the chain does not expose it).
    ///   - sleeper: the timer the auto-miner waits on.
    public init(chain: RegtestChain, policy: MempoolPolicy, sleeper: any Sleeper, txIndex: Bool = true) {
        self.chain = chain
        self.txIndex = txIndex
        self.policy = policy
        self.wallet = HubWallet(chain: chain, policy: policy)
        self.autoMiner = AutoMiner(chain: chain, sleeper: sleeper)
    }

    /// Core's `mempool_sequence`: counts every mempool addition and removal. The hub counts
    /// the ones its RPC methods cause (acceptances, and removals by mining and reorgs).
    var mempoolSequence: Int { sequence.load(ordering: .relaxed) }

    func noteMempoolChange(_ count: Int) {
        if count > 0 { sequence.add(count, ordering: .relaxed) }
    }

    /// Runs a chain change and counts how the mempool changed across it.
    func changingMempool<T>(_ body: () throws -> T) rethrows -> T {
        let before = Set(chain.mempoolEntries().map(\.entry.txid))
        defer {
            let after = Set(chain.mempoolEntries().map(\.entry.txid))
            noteMempoolChange(before.symmetricDifference(after).count)
        }
        return try body()
    }

    /// Stops the auto-miner; the chain itself is closed by its owner.
    public func shutDown() async {
        await autoMiner.stop()
    }
}
