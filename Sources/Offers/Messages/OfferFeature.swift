import HTLC

/// Capability names an Offer's `features` may list. The contract types a provider can
/// lock are named by their `script_type` (`taproot_boltz`, `p2wsh`).
public enum OfferFeature {
    /// The provider accepts `PreimagePush` to settle before it sees the claim on-chain.
    public static let preimagePush = "preimage_push"

    /// Contract types named in `features`, in the client's order of preference (Taproot
    /// first: cheapest to claim). An offer naming none is read as the default,
    /// `taproot_boltz`.
    public static func contractTypes(in features: [String]) -> [ContractType] {
        let named = ContractType.allCases.filter { features.contains($0.rawValue) }
        return named.isEmpty ? [.taprootBoltz] : named
    }
}
