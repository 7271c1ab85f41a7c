import HTLC

/// Capability names an Offer's `features` may list. The contract types a provider can
/// lock are named by their `script_type` (`taproot_boltz`, `p2wsh_v2`; the retired `p2wsh` is never read from an offer).
public enum OfferFeature {
    /// The provider accepts `PreimagePush` to settle before it sees the claim on-chain.
    public static let preimagePush = "preimage_push"

    /// The provider co-signs cooperative (MuSig2 key-path) claims: it answers
    /// `CoopClaimRequest`. A client asks only a provider whose offer lists it, and only
    /// when it offers the feature itself; anyone else is never asked.
    public static let musig2 = "musig2"

    /// Contract types named in `features` that a new swap may use, in the client's order
    /// of preference (Taproot first: cheapest to claim). An offer naming no contract type
    /// is read as the default, `taproot_boltz`; one naming only retired types (an old
    /// provider offering only `p2wsh`) gives none: nothing can be asked of it.
    public static func contractTypes(in features: [String]) -> [ContractType] {
        let named = ContractType.allCases.filter { features.contains($0.rawValue) }
        if !named.isEmpty { return named }
        return ContractType.retired.contains(where: { features.contains($0.rawValue) }) ? [] : [.taprootBoltz]
    }
}
