import Bitcoin

/// A Lightning node as `LightningBackend.info()` reports it.
public struct LightningNodeStatus: Sendable, Hashable {
    /// The node's identity key (LND `identity_pubkey`).
    public var identityKey: PublicKey
    public var alias: String
    /// The chain (`bitcoin`) and network (`mainnet`, `testnet`, `signet`, `regtest`, ...)
    /// as the node names them.
    public var chain: String
    public var network: String
    /// The height of the node's best block.
    public var blockHeight: Int
    /// The hash of that block (LND's `block_hash`), read with the height; nil when the
    /// node gave none. An Electrum server the operator does not run is checked against it.
    public var blockHash: BlockHash?
    /// True once the node has caught up with the chain; until then its view of HTLC
    /// expiries lags.
    public var syncedToChain: Bool

    public init(identityKey: PublicKey, alias: String, chain: String, network: String, blockHeight: Int,
                blockHash: BlockHash? = nil, syncedToChain: Bool) {
        self.identityKey = identityKey
        self.alias = alias
        self.chain = chain
        self.network = network
        self.blockHeight = blockHeight
        self.blockHash = blockHash
        self.syncedToChain = syncedToChain
    }
}
