/// A provider priced for one payment: what `Router.confirm` re-prices on the provider's
/// signed offer and compares with what its descriptor said (`RouteCandidate`,
/// `SubmarineCandidate`).
public protocol PricedCandidate: Sendable {
    var provider: ProviderOffer { get }
    /// Every fee the route costs the payer, in sat.
    var totalCostSat: Int64 { get }
}

extension RouteCandidate: PricedCandidate {}
extension SubmarineCandidate: PricedCandidate {}
