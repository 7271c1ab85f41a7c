/// What a contact accepts over Lightning: an invoice request for an amount outside
/// `minimumMsat...maximumMsat` is refused with `amount_out_of_range`.
public struct ContactInvoiceLimits: Sendable, Hashable {
    public let minimumMsat: Int64
    public let maximumMsat: Int64

    public init(minimumMsat: Int64 = 1_000, maximumMsat: Int64) {
        self.minimumMsat = minimumMsat
        self.maximumMsat = maximumMsat
    }

    public func check(_ request: ContactInvoiceRequest) throws(OffersError) {
        guard (minimumMsat...max(minimumMsat, maximumMsat)).contains(request.amountMsat), maximumMsat >= minimumMsat else {
            throw .invoiceAmountOutOfRange(amountMsat: request.amountMsat, minimumMsat: minimumMsat, maximumMsat: maximumMsat)
        }
    }
}
