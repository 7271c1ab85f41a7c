import Bitcoin
import Lightning
import Offers

/// The facts `SubmarineRules` and `ContactInvoicePolicy` check, read from a BOLT11 invoice
/// the Lightning module decoded and whose signature it verified (the payee's key is the
/// stated `n` or the one recovered from the signature).
extension SubmarineInvoice {
    public init(_ invoice: Invoice) {
        self.init(network: invoice.currency.network, paymentHash: invoice.paymentHash, amountMsat: invoice.amountMsat,
                  payeeNodeID: invoice.payeeNodeID, expiresAtUnix: invoice.expiresAt,
                  minFinalCLTVExpiry: Int(clamping: invoice.minFinalCLTVExpiryDelta))
    }

    /// Decodes `bolt11`, refusing an invoice that does not parse or whose signature does
    /// not verify (`BOLT11Error`, whose message names no invoice bytes).
    public init(bolt11: String) throws(BOLT11Error) {
        self.init(try InvoiceDecoder.decode(bolt11))
    }
}
