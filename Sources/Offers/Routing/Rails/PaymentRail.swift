/// How the payee receives X: on chain (to the address the contact gave) or over
/// Lightning (the contact's own signed invoice).
public enum PaymentRail: String, Sendable, Hashable, CaseIterable {
    case onchain
    case lightning

    /// "on-chain", "Lightning": as the reason lines say it.
    public var name: String { self == .onchain ? "on-chain" : "Lightning" }
}
