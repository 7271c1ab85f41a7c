/// One of the four ways to pay X: a rail the wallet holds straight to a rail the contact
/// takes, or a swap between the two.
public enum RailRoute: Sendable, Equatable {
    /// Savings → on-chain: send X to the contact's address. `feeSat`: the send's miner fee.
    case directOnchain(feeSat: Int64)
    /// Spending → Lightning: pay the contact's invoice of X. `routingFeeSat`: the estimate.
    case directLightning(routingFeeSat: Int64)
    /// Spending → on-chain through a provider's reverse swap (`ln_to_onchain`).
    case reverseSwap(RouteCandidate)
    /// Savings → Lightning through a provider's submarine swap (`onchain_to_ln`).
    case submarineSwap(SubmarineCandidate)

    public var kind: RailOption {
        switch self {
        case .directOnchain: return .directOnchain
        case .directLightning: return .directLightning
        case .reverseSwap: return .reverseSwap
        case .submarineSwap: return .submarineSwap
        }
    }

    /// Everything paid beyond X.
    public var costSat: Int64 {
        switch self {
        case .directOnchain(let fee): return fee
        case .directLightning(let fee): return fee
        case .reverseSwap(let candidate): return candidate.totalCostSat
        case .submarineSwap(let candidate): return candidate.totalCostSat
        }
    }

    /// The provider a swap goes through; nil for a direct payment.
    public var provider: ProviderOffer? {
        switch self {
        case .directOnchain, .directLightning: return nil
        case .reverseSwap(let candidate): return candidate.provider
        case .submarineSwap(let candidate): return candidate.provider
        }
    }
}
