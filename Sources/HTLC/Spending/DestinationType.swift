import Bitcoin

/// The output script types a claim or refund pays. The type alone fixes the output's size,
/// so it decides both the transaction's vsize and the dust limit.
public enum DestinationType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case p2pkh, p2sh, p2wpkh, p2wsh, p2tr

    /// The type of `address`; future witness versions are refused (not standard to create
    /// in every wallet, and no dust rule is settled for them).
    public init(address: Address) throws {
        switch address {
        case .p2pkh: self = .p2pkh
        case .p2sh: self = .p2sh
        case .p2wpkh: self = .p2wpkh
        case .p2wsh: self = .p2wsh
        case .p2tr: self = .p2tr
        case .witness: throw HTLCError.unsupportedDestination
        }
    }

    /// Bytes of the scriptPubKey: 25, 23, 22, 34, 34.
    public var scriptPubKeySize: Int {
        switch self {
        case .p2pkh: return 25
        case .p2sh: return 23
        case .p2wpkh: return 22
        case .p2wsh, .p2tr: return 34
        }
    }

    /// Whether spending such an output uses a witness (Core's dust rule discounts those).
    public var isWitnessProgram: Bool {
        switch self {
        case .p2pkh, .p2sh: return false
        case .p2wpkh, .p2wsh, .p2tr: return true
        }
    }

    /// A placeholder script of the right size (all-zero hash or key), for size computations.
    var placeholderScript: Script {
        switch self {
        case .p2pkh: return Address.p2pkh(pubkeyHash: [UInt8](repeating: 0, count: 20)).script
        case .p2sh: return Address.p2sh(scriptHash: [UInt8](repeating: 0, count: 20)).script
        case .p2wpkh: return Address.p2wpkh(pubkeyHash: [UInt8](repeating: 0, count: 20)).script
        case .p2wsh: return Address.p2wsh(scriptHash: [UInt8](repeating: 0, count: 32)).script
        case .p2tr: return Address.p2tr(outputKey: [UInt8](repeating: 0, count: 32)).script
        }
    }

    public var description: String { rawValue.uppercased() }
}
