/// The outcome of settling the largest sendable amount.
public struct MaxSendableResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The largest amount found whose own quote fits.
        case settled
        /// The provider's maximum fits the budget.
        case atProviderMaximum
        /// Not even the offer's minimum fits the budget (nothing is returned).
        case budgetBelowMinimum
        /// The round limit was reached; the amount is the best one verified so far.
        case roundsExhausted
        /// A quote failed; the amount is the best one verified before it, if any.
        case quoteFailed(String)
    }

    /// X: what the destination would receive. Nil when no amount was seen to fit.
    public let amountSat: Int64?
    /// The quote that verified it (for `amountSat` + claim fee).
    public let quote: Quote?
    /// Quotes asked for.
    public let rounds: Int
    public let outcome: Outcome
}
