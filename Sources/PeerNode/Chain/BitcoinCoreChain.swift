import Bitcoin

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
