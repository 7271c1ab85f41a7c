/// The fields of a decoded BOLT11 invoice the accept check needs, as plain values (the
/// Lightning module's decoder fills them in; this module does not parse invoices).
public struct InvoiceFacts: Sendable, Hashable {
    public let paymentHash: [UInt8]
    /// Nil for an invoice without an amount, which a swap never accepts.
    public let amountMsat: UInt64?
    /// The final hop's CLTV delta (`min_final_cltv_expiry`).
    public let minFinalCLTVExpiry: Int

    public init(paymentHash: [UInt8], amountMsat: UInt64?, minFinalCLTVExpiry: Int) {
        self.paymentHash = paymentHash
        self.amountMsat = amountMsat
        self.minFinalCLTVExpiry = minFinalCLTVExpiry
    }
}
