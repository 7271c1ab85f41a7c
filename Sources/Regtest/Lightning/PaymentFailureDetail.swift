/// The simulator's own account of a failure, finer than LND's reason: which limit or
/// which side refused. For logs and tests; LND's REST answer carries only the reason.
public enum PaymentFailureDetail: Sendable, Hashable, CustomStringConvertible {
    /// The payer is offline: it has no active channel to send on.
    case payerOffline
    /// No node of the network has the invoice's payee key.
    case unknownDestination
    /// The payee is offline: its channels are inactive.
    case payeeOffline
    /// The route's CLTV delta is above the payment's limit.
    case cltvLimitExceeded(totalDelta: UInt64, limit: UInt32)
    /// The route's fee is above the payment's fee limit.
    case feeLimitExceeded(feeMsat: UInt64, limitMsat: UInt64)
    /// The payer cannot cover amount + fee from what its channel lets it send (above the
    /// reserve, and for a funder the anchors and the fee buffer).
    case insufficientBalance(neededMsat: UInt64, balanceMsat: UInt64, spendableMsat: UInt64)
    /// The payee has no invoice for the payment hash.
    case unknownInvoice
    /// The payee's invoice is not OPEN (already paid, accepted or cancelled).
    case invoiceNotOpen(InvoiceState)
    /// The HTLC carries less than the invoice asks, or more than twice it.
    case amountMismatch(htlcMsat: UInt64, invoiceMsat: UInt64)
    /// The payee cancelled the held HTLC (cancelInvoice).
    case canceledByPayee
    /// The payee cancelled the held HTLC as it neared expiry (LND's holdexpirydelta).
    case heldHTLCNearExpiry(expiryHeight: Int, height: Int)

    public var description: String {
        switch self {
        case .payerOffline: return "the paying node is offline"
        case .unknownDestination: return "no node with the invoice's payee key"
        case .payeeOffline: return "the payee is offline"
        case .cltvLimitExceeded(let delta, let limit): return "route CLTV delta \(delta) exceeds the limit \(limit)"
        case .feeLimitExceeded(let fee, let limit): return "route fee \(fee) msat exceeds the limit \(limit) msat"
        case .insufficientBalance(let needed, let balance, let spendable):
            return "needs \(needed) msat, can send \(spendable) msat (balance \(balance) msat less the channel reserve, "
                + "and for the channel's funder its anchors and fee buffer)"
        case .unknownInvoice: return "the payee has no invoice for this hash"
        case .invoiceNotOpen(let state): return "the payee's invoice is \(state.lndName)"
        case .amountMismatch(let htlc, let invoice): return "HTLC of \(htlc) msat for an invoice of \(invoice) msat"
        case .canceledByPayee: return "the payee cancelled the invoice"
        case .heldHTLCNearExpiry(let expiry, let height): return "held HTLC expiring at \(expiry) cancelled at height \(height)"
        }
    }
}
