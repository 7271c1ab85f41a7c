/// How a swap's Lightning payment ended after the swap itself had ended while the payment
/// was held (`ClientFundsFate.awaitsPayment`). A record's final event is written once, so
/// this end is kept beside the event log, as the routing fee is
/// (`ClientEngine.paymentEndKey`); `swaps`, `swap` and the accounting read it from there.
public enum ClientPaymentEnd: String, Sendable, Hashable, CaseIterable {
    /// The provider settled the invoice: the payment is spent, and the swap made no claim.
    case succeeded
    /// The payment failed back: the funds are in the Lightning balance again.
    case failed
}

extension ClientFundsFate {
    /// The fate as it stands once the payment's later end is known: a fate that waited on
    /// the payment becomes `returned` or `lost`; any other fate, or no end yet, stays.
    public func after(_ end: ClientPaymentEnd?) -> ClientFundsFate {
        guard awaitsPayment, let end else { return self }
        return end == .succeeded ? .lost : .returned
    }
}
