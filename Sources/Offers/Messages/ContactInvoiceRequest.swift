import Transport

/// Any node -> a contact that takes Lightning (its `Endpoints` list a `lightning` entry):
/// an invoice for `amount_msat`, please. Answered by a signed `Invoice`
/// (`Signed<ContactInvoice>`) or a Reject (`amount_out_of_range` outside what the contact
/// accepts, `not_found` when it takes no Lightning). Wire type `InvoiceRequest`.
public struct ContactInvoiceRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "InvoiceRequest"
    /// BOLT11's description field holds at most 639 bytes (1,023 five-bit words, less
    /// what a tag takes); a longer one could never be put into the invoice.
    public static let maxDescriptionBytes = 639
    /// 21 million BTC in millisatoshis.
    public static let maximumMsat: Int64 = Amounts.maximumSat * 1_000

    public let requestID: String
    /// What the payer will pay, in millisatoshis (at least 1).
    public let amountMsat: Int64
    /// The invoice's description (may be empty).
    public let description: String

    public init(requestID: String, amountMsat: Int64, description: String) {
        self.requestID = requestID
        self.amountMsat = amountMsat
        self.description = description
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        amountMsat = try fields.int64("amount_msat", in: 1...Self.maximumMsat)
        description = try fields.string("description")
        guard description.utf8.count <= Self.maxDescriptionBytes else { throw .valueOutOfRange(field: "description") }
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "amount_msat": .integer(amountMsat),
            "description": .string(description),
        ])
    }
}
