/// Which HTLC a swap locks into. The raw values are the `script_type` names on the wire.
public enum ContractType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The default: a Boltz-compatible Taproot tree (claim leaf, refund leaf) under a MuSig2
    /// internal key. Cheapest to claim, and the lock looks like any other P2TR output.
    case taprootBoltz = "taproot_boltz"
    /// An OP_SHA256 P2WSH script, for interop with wallets that have no Taproot.
    case p2wsh = "p2wsh"

    /// Parses a wire name, refusing anything else with `unknownContractType`.
    public init(name: String) throws {
        guard let type = ContractType(rawValue: name) else { throw HTLCError.unknownContractType(name) }
        self = type
    }

    public var description: String { rawValue }
}
