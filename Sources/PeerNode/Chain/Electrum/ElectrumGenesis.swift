import Bitcoin

/// The genesis block hashes a server's `server.features` may report for each network:
/// the network check compares against these. Testnet accepts testnet3's and testnet4's,
/// which the node's `Network` does not tell apart.
public enum ElectrumGenesis {
    public static func hashes(for network: Network) -> Set<String> {
        switch network {
        case .mainnet: return ["000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"]
        case .testnet: return ["000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
                               "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043"]
        case .signet: return ["00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6"]
        case .regtest: return ["0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"]
        }
    }
}
