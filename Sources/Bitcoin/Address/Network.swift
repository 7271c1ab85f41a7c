/// The Bitcoin networks a node can run on, with the constants their address and
/// key encodings use.
///
/// Testnet, signet and regtest share base58 version bytes, and testnet and signet
/// share the bech32 prefix `tb`: an address string alone cannot say which of those
/// networks it was made for. Parsing therefore takes the network the caller runs on
/// and accepts every string whose encoding that network shares
/// (see `encodingSiblings`); `Address.decodeAnyNetwork` returns the whole set when
/// the caller has no network in mind.
public enum Network: String, Sendable, CaseIterable {
    case mainnet, testnet, signet, regtest

    /// Base58Check version byte of P2PKH addresses.
    public var p2pkhVersion: UInt8 {
        self == .mainnet ? 0x00 : 0x6f
    }

    /// Base58Check version byte of P2SH addresses.
    public var p2shVersion: UInt8 {
        self == .mainnet ? 0x05 : 0xc4
    }

    /// Base58Check version byte of WIF private keys.
    public var wifVersion: UInt8 {
        self == .mainnet ? 0x80 : 0xef
    }

    /// Human-readable part of segwit (bech32/bech32m) addresses.
    public var bech32HRP: String {
        switch self {
        case .mainnet: return "bc"
        case .testnet, .signet: return "tb"
        case .regtest: return "bcrt"
        }
    }

    /// The networks whose addresses and keys are encoded exactly like this one's
    /// (itself included): a string valid for one of them is valid for all of them.
    public var encodingSiblings: Set<Network> {
        Set(Network.allCases.filter { $0.bech32HRP == bech32HRP && $0.p2pkhVersion == p2pkhVersion })
    }

    /// The networks whose segwit addresses use `hrp` (lowercase), empty if none.
    static func networks(bech32HRP hrp: String) -> Set<Network> {
        Set(allCases.filter { $0.bech32HRP == hrp })
    }

    /// A phrase naming a set of networks for error messages ("testnet or signet").
    static func describe(_ networks: Set<Network>) -> String {
        let names = allCases.filter(networks.contains).map(\.rawValue)
        switch names.count {
        case 0: return "no known network"
        case 1: return names[0]
        default: return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
        }
    }
}
