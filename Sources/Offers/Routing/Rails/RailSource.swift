/// Which of the wallet's balances a payment spends: the confirmed on-chain savings, or
/// the Lightning spending balance (outbound liquidity). `--from` forces one.
public enum RailSource: String, Sendable, Hashable, CaseIterable {
    case savings
    case spending

    /// The rail this balance pays on without a swap.
    public var directRail: PaymentRail { self == .savings ? .onchain : .lightning }

    /// "savings", "spending": as the reason lines say it.
    public var balanceName: String { rawValue }

    /// "savings hold", "spending holds".
    public var holds: String { self == .savings ? "savings hold" : "spending holds" }

    /// "savings (500 sat) do not cover", "spending (500 sat) does not cover".
    func doesNotCover(_ balanceSat: Int64) -> String {
        "\(balanceName) (\(OffersError.sats(balanceSat))) \(self == .savings ? "do" : "does") not cover"
    }
}
