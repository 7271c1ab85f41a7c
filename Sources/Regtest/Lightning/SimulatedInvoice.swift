/// An invoice as its payee node sees it: the fields of LND's `lnrpc.Invoice` that the
/// REST layer serves from `/v2/invoices/lookup` and `/v2/invoices/subscribe/{hash}`.
public struct SimulatedInvoice: Sendable, Hashable {
    public var memo: String
    /// The preimage: known from creation for a plain invoice, from settlement for a
    /// hold invoice (nil before).
    public var preimage: [UInt8]?
    public var paymentHash: [UInt8]
    /// The `s` field of the payment request (LND's `payment_addr`).
    public var paymentAddress: [UInt8]
    /// The requested amount; 0 for an any-amount invoice (LND's `value_msat`).
    public var valueMsat: UInt64
    /// Seconds since 1970 (the invoice's BOLT11 timestamp).
    public var creationDate: UInt64
    /// When it was settled; nil otherwise.
    public var settleDate: UInt64?
    public var paymentRequest: String
    public var expirySeconds: UInt64
    /// The final CLTV delta written in the payment request's `c` field.
    public var cltvExpiry: UInt64
    public var isHold: Bool
    public var state: InvoiceState
    /// LND's `add_index` (1, 2, ... per node) and `settle_index` (0 until settled).
    public var addIndex: UInt64
    public var settleIndex: UInt64
    /// Sum of the settled HTLCs (LND's `amt_paid_msat`).
    public var amountPaidMsat: UInt64
    public var htlcs: [InvoiceHTLC]

    /// True at or after the BOLT11 expiry: an OPEN invoice is cancelled then.
    public func isExpired(now: UInt64) -> Bool {
        let (end, overflow) = creationDate.addingReportingOverflow(expirySeconds)
        return !overflow && now >= end
    }
}
