/// How a swap counts in the report. In-flight swaps are listed apart and never counted:
/// their money is still moving, so any figure for them would be a guess.
public enum AccountingOutcome: String, Sendable, Hashable, CaseIterable {
    /// The swap did what it was for: the client's destination got the coins, the provider
    /// settled the invoice.
    case completed
    /// It ended without moving the swapped amount (nothing paid, or the payment returned).
    case failed
    /// The provider locked and took the lock back: it paid the lock and refund fees.
    case refunded
    /// Money left for nothing: the provider's lock was spent by someone else without a
    /// preimage, or a client's held payment was settled after its swap ended with no claim.
    case lost
    /// Not final yet.
    case inFlight = "in_flight"
}
