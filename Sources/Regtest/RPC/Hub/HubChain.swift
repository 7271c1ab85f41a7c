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
    /// `size_on_disk` for the tip it was summed at: summing serialises every block, and
    /// `getblockchaininfo` is asked far more often than a block comes.
    private let diskSize = Mutex<(tip: BlockHash, bytes: Int)?>(nil)

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

    /// What Core's blk files would hold for the active chain up to `tip`: each block with
    /// its 8-byte record header (magic and length). Summed again only when the tip moves.
    func sizeOnDisk(tip: ChainBlock) -> Int {
        if let known = diskSize.withLock({ $0 }), known.tip == tip.hash { return known.bytes }
        var bytes = 0
        for height in 0...tip.height {
            if let block = chain.block(atHeight: height) { bytes += block.block.serialized.count + 8 }
        }
        diskSize.withLock { $0 = (tip.hash, bytes) }
        return bytes
    }

    /// Stops the auto-miner; the chain itself is closed by its owner.
    public func shutDown() async {
        await autoMiner.stop()
    }
}
