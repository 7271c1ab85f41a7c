/// What happened to the user's money when a swap ended, said the way the user needs it.
public enum ClientFundsFate: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing left the Lightning balance.
    case neverSent = "never_sent"
    /// The payment failed; the Lightning node has the funds back.
    case returned
    /// The payment is held by the provider's hold invoice and returns when the provider
    /// cancels it or its HTLC expires. The preimage was never revealed, so the provider
    /// cannot take it.
    case heldUntilCancelled = "held_until_cancelled"
    /// The destination received the amount on chain.
    case delivered
    /// The provider took its lock back (the refund, after the timeout) while the preimage
    /// may have reached it: a cooperative round was recorded, or this node accepted the
    /// claim. The payment is lost if the provider settled it, and returns if it fails back.
    case refundedAfterReveal = "refunded_after_reveal"
    /// The provider settled the payment of a swap that ended with no claim (never written at
    /// the end: what `held_until_cancelled` or `refunded_after_reveal` becomes once the
    /// Lightning node reports the payment succeeded, `after(_:)`). The amount is lost.
    case lost

    /// Whether the payment's own end decides this fate: when the Lightning node reports it
    /// failed back, the money is `returned` whatever the swap said first.
    public var awaitsPayment: Bool { self == .heldUntilCancelled || self == .refundedAfterReveal }

    public var description: String {
        switch self {
        case .neverSent: return "nothing was paid"
        case .returned: return "the funds are back in the Lightning balance"
        case .heldUntilCancelled:
            return "the Lightning payment is held by the provider and returns when it cancels the invoice or the HTLC expires (the preimage was never revealed)"
        case .delivered: return "the destination received the amount on chain"
        case .refundedAfterReveal:
            return "the provider took its lock back after the preimage may have reached it: the payment is lost if the provider "
                + "settled it (check the Lightning node), and returns if it fails back"
        case .lost:
            return "the provider settled the Lightning payment and no claim was made: the amount is lost (the payment's "
                + "preimage, kept by the Lightning node, proves it was paid)"
        }
    }
}

/// How a swap ended: why, and where the funds are.
public struct ClientSwapOutcome: Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public let funds: ClientFundsFate

    public init(reason: String, funds: ClientFundsFate) {
        self.reason = reason
        self.funds = funds
    }

    public var description: String { "\(reason); \(funds)" }
}
