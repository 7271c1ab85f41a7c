/// Where the client's on-chain money is when a submarine swap ends, said the way the user
/// needs it.
public enum SubmarineClientFundsFate: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing was locked: the wallet holds everything it held.
    case neverLocked = "never_locked"
    /// The invoice was paid (the preimage is the proof) and the lock is the provider's.
    case delivered
    /// The lock came back to the wallet through the refund, less the lock's and the
    /// refund's fees.
    case refunded

    public var description: String {
        switch self {
        case .neverLocked: return "nothing was locked"
        case .delivered: return "the invoice was paid; the provider took the lock it paid for"
        case .refunded: return "the lock came back to the wallet through the refund (less the lock's and the refund's fees)"
        }
    }
}
