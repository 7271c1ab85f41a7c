/// The four kinds of route, by source balance and the rail the payee receives on.
public enum RailOption: String, Sendable, Hashable, CaseIterable {
    case directLightning = "direct_lightning"
    case directOnchain = "direct_onchain"
    case reverseSwap = "reverse_swap"
    case submarineSwap = "submarine_swap"

    public var source: RailSource {
        switch self {
        case .directOnchain, .submarineSwap: return .savings
        case .directLightning, .reverseSwap: return .spending
        }
    }

    /// The rail the payee receives on.
    public var rail: PaymentRail {
        switch self {
        case .directOnchain, .reverseSwap: return .onchain
        case .directLightning, .submarineSwap: return .lightning
        }
    }

    public var isDirect: Bool { self == .directOnchain || self == .directLightning }

    /// The swap direction of a swap option; nil for a direct one.
    public var direction: SwapDirection? {
        switch self {
        case .reverseSwap: return .lightningToOnchain
        case .submarineSwap: return .onchainToLightning
        case .directOnchain, .directLightning: return nil
        }
    }

    /// As the refusals and debug lines say it.
    public var name: String {
        switch self {
        case .directLightning: return "paying directly on Lightning"
        case .directOnchain: return "sending directly from savings"
        case .reverseSwap: return "swapping out (spending → on-chain)"
        case .submarineSwap: return "swapping in (savings → Lightning)"
        }
    }
}
