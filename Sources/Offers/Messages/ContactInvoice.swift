import Transport

/// A contact -> the node that asked: a BOLT11 invoice for the requested amount, signed by
/// the contact's identity (`Signed<ContactInvoice>`, the offer-signing scheme: ed25519
/// over the canonical JSON without `signature`, `type` and `request_id` included). The
/// payer verifies it against the pubky it dialled, so an invoice swapped on the way, or
/// made by anyone else, is refused before anything is paid. Wire type `Invoice`.
public struct ContactInvoice: SwapMessageBody, RequestScoped {
    public static let messageType = "Invoice"

    public let requestID: String
    /// The BOLT11 invoice.
    public let invoice: String

    public init(requestID: String, invoice: String) {
        self.requestID = requestID
        self.invoice = invoice
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        invoice = try fields.nonEmptyString("invoice", maxBytes: SubmarineSwapRequest.maxInvoiceBytes)
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, ["invoice": .string(invoice)])
    }
}
