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
    /// True once the node has caught up with the chain; until then its view of HTLC
    /// expiries lags.
    public var syncedToChain: Bool

    public init(identityKey: PublicKey, alias: String, chain: String, network: String, blockHeight: Int,
                syncedToChain: Bool) {
        self.identityKey = identityKey
        self.alias = alias
        self.chain = chain
        self.network = network
        self.blockHeight = blockHeight
        self.syncedToChain = syncedToChain
    }
}
