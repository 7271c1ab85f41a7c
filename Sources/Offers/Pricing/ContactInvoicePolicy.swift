import Bitcoin
import Transport

/// The payer's checks of a contact's `Invoice` reply before paying it: signed by the
/// contact it dialled (so an invoice swapped on the way, or made by anyone else, is
/// refused), an answer to its own request, and an invoice (decoded by the Lightning
/// module) on its network, for exactly the amount asked, not expiring before it can be paid.
public struct ContactInvoicePolicy: Sendable, Hashable {
    /// An invoice with less left than this cannot be paid with any confidence.
    public static let defaultMinimumSecondsLeft: UInt64 = 60

    public let network: Network
    public let minimumSecondsLeft: UInt64

    public init(network: Network, minimumSecondsLeft: UInt64 = defaultMinimumSecondsLeft) {
        self.network = network
        self.minimumSecondsLeft = minimumSecondsLeft
    }

    /// The signature and the request it answers. Returns the BOLT11 string for the caller
    /// to decode, then `check(_:answering:nowUnix:)`.
    public func checkSignature(_ signed: Signed<ContactInvoice>, answering request: ContactInvoiceRequest,
                               contact: Pubky) throws(OffersError) -> String {
        try signed.verify(by: contact)
        guard signed.body.requestID == request.requestID else {
            throw .acceptMismatch("the invoice answers another request")
        }
        return signed.body.invoice
    }

    /// The decoded invoice against the request.
    public func check(_ invoice: SubmarineInvoice, answering request: ContactInvoiceRequest,
                      nowUnix: UInt64) throws(OffersError) {
        guard invoice.network == network else {
            throw .acceptMismatch("the invoice is for \(invoice.network.rawValue), not \(network.rawValue)")
        }
        guard let amount = invoice.amountMsat, amount == UInt64(request.amountMsat) else {
            throw .acceptMismatch("the invoice is not for the \(request.amountMsat) msat asked")
        }
        guard invoice.expiresAtUnix >= nowUnix + minimumSecondsLeft else {
            throw .acceptMismatch("the invoice expires in less than \(minimumSecondsLeft) s")
        }
    }
}
