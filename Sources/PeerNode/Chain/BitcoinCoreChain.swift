import Bitcoin
import HTLC

/// Core's names for its chains (`getblockchaininfo`'s `chain`) and which node network
/// each one serves.
public enum BitcoinCoreChain {
    /// The `chain` values Core may report for a network. The node's `testnet` is either of
    /// Core's test networks: testnet3 (`test`) and testnet4 (`testnet4`) share every
    /// address and key encoding, so the node cannot tell them apart and accepts both.
    public static func names(for network: Network) -> [String] {
        switch network {
        case .mainnet: return ["main"]
        case .testnet: return ["test", "testnet4"]
        case .signet: return ["signet"]
        case .regtest: return ["regtest"]
        }
    }

    /// Whether a backend reporting `chain` serves `network`.
    public static func matches(_ chain: String, network: Network) -> Bool {
        names(for: network).contains(chain)
    }
}

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

/// `estimatesmartfee`'s answer: the rate (nil when Core has no data) and the target Core
/// actually answered for (it raises 1 to 2 and lowers targets it cannot serve).
public struct CoreFeeEstimate: Hashable, Sendable {
    public let feeRate: FeeRate?
    public let blocks: Int

    public init(feeRate: FeeRate?, blocks: Int) {
        self.feeRate = feeRate
        self.blocks = blocks
    }

    /// `estimate_mode`; `conservative` answers higher and reacts slower.
    public enum Mode: String, Sendable {
        case unset, economical, conservative
    }
}
