/// Which HTLC a swap locks into. The raw values are the `script_type` names on the wire.
public enum ContractType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The default: a Boltz-compatible Taproot tree (claim leaf, refund leaf) under a MuSig2
    /// internal key. Cheapest to claim, and the lock looks like any other P2TR output.
    case taprootBoltz = "taproot_boltz"
    /// An OP_SHA256 P2WSH script whose claim branch checks the preimage is 32 bytes, for
    /// interop with wallets that have no Taproot. Wire name `p2wsh_v2`.
    case p2wsh = "p2wsh_v2"
    /// Retired: the first P2WSH layout (wire name `p2wsh`, pubky-swap's script), whose claim
    /// branch never checked the preimage's size. A client could make its payment hash from
    /// a 33-byte value, claim the lock with it, and leave the provider nothing it could
    /// settle with (audit C-1). It is never offered nor accepted for a new swap; it is kept
    /// only so that locks made with it are still refunded and recovered.
    case p2wshUnsized = "p2wsh"

    /// The types a swap may be set up with today, in the client's order of preference.
    /// `p2wshUnsized` is left out on purpose: see `retired`.
    public static var allCases: [ContractType] { [.taprootBoltz, .p2wsh] }

    /// Types still read from stored swaps and from the chain, never used for a new swap.
    public static let retired: [ContractType] = [.p2wshUnsized]

    /// Every type a stored swap or a lock on chain may have.
    public static var known: [ContractType] { allCases + retired }

    public var isRetired: Bool { Self.retired.contains(self) }

    /// Parses a wire name, refusing anything else with `unknownContractType`. A retired
    /// name parses (stored swaps use it); `checkOfferable()` refuses it for new swaps.
    public init(name: String) throws {
        guard let type = ContractType(rawValue: name) else { throw HTLCError.unknownContractType(name) }
        self = type
    }

    /// Refuses a retired type, saying what to ask for instead.
    public func checkOfferable() throws(HTLCError) {
        if isRetired { throw HTLCError.retiredContractType(rawValue) }
    }

    public var description: String { rawValue }
}
