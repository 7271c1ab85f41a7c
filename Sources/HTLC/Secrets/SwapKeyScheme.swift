import Bitcoin

/// Which derivation a swap's secrets come from. Every stored swap records its scheme, so
/// a swap made before a scheme change is still derived (and recovered) the way it was made.
///
///     legacy (0):    m/1009'/{0,1,2}'/index'
///     networked (1): m/1009'/16'/net'/{0,1,2}'/index'
///
/// Branch 0 is the claim key, 1 the refund key, 2 the preimage key. `16'` is derivation
/// version 1: above the legacy branch numbers 0-2 so the two trees never share a node.
/// `net'` is 0 mainnet, 1 testnet, 2 signet, 3 regtest.
///
/// Why the network is in the path (audit H-5): the legacy scheme gave a seed the same
/// secrets on every network, so a seed reused on testnet and then mainnet handed out swap
/// index N twice, and a preimage revealed on one network let a provider settle the other's
/// invoice without locking.
public enum SwapKeyScheme: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case legacy = 0
    case networked = 1

    /// The scheme new swaps use.
    public static let current: SwapKeyScheme = .networked

    /// The hardened step under m/1009' that holds derivation version 1.
    public static let versionOneBranch: UInt32 = 16

    /// The hardened `net'` step of the networked scheme.
    public static func networkBranch(_ network: Network) -> UInt32 {
        switch network {
        case .mainnet: return 0
        case .testnet: return 1
        case .signet: return 2
        case .regtest: return 3
        }
    }

    /// The path of `branch` (0 claim, 1 refund, 2 preimage) of swap `index`, for documents
    /// and tests: `SwapKeyChain` derives the same keys from cached parents.
    public func path(branch: UInt32, index: UInt32, network: Network) -> String {
        switch self {
        case .legacy: return "m/\(SwapKeyChain.purpose)'/\(branch)'/\(index)'"
        case .networked:
            return "m/\(SwapKeyChain.purpose)'/\(Self.versionOneBranch)'/\(Self.networkBranch(network))'/\(branch)'/\(index)'"
        }
    }

    public var description: String {
        switch self {
        case .legacy: return "legacy (m/1009'/branch'/index')"
        case .networked: return "networked (m/1009'/16'/net'/branch'/index')"
        }
    }
}
