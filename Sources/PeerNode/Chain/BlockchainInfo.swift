import Bitcoin

/// `getblockchaininfo`'s fields the node uses.
public struct BlockchainInfo: Hashable, Sendable {
    /// Core's chain name: `main`, `test`, `testnet4`, `signet` or `regtest`.
    public let chain: String
    public let blocks: Int
    public let headers: Int
    public let bestBlockHash: BlockHash
    public let initialBlockDownload: Bool
    public let pruned: Bool

    public init(chain: String, blocks: Int, headers: Int, bestBlockHash: BlockHash,
                initialBlockDownload: Bool, pruned: Bool) {
        self.chain = chain
        self.blocks = blocks
        self.headers = headers
        self.bestBlockHash = bestBlockHash
        self.initialBlockDownload = initialBlockDownload
        self.pruned = pruned
    }

    public var tip: ChainTip { ChainTip(height: blocks, hash: bestBlockHash) }
}
