import Bitcoin
import HTLC
import Transport

/// Client -> provider, `onchain_to_ln`: commit to quote `quote_id`, asking the provider to
/// pay `invoice` (BOLT11) once the client's lock has the quote's confirmations, and giving
/// the client's refund key. Same `type` as the reverse request (`SwapRequest`), told apart
/// by `"direction": "onchain_to_ln"`, which this one always carries and requires: an older
/// provider reads it as a reverse request without `payment_hash` and refuses it.
///
/// The payment hash is the invoice's; the provider checks the invoice against the quote
/// (`SubmarineRules`) before it answers.
public struct SubmarineSwapRequest: SwapMessageBody, RequestScoped {
    public static let messageType = SwapRequest.messageType
    /// BOLT11 strings are a few hundred characters; LND's own limit is 7,089.
    public static let maxInvoiceBytes = 8_192

    public let requestID: String
    public let quoteID: String
    /// The BOLT11 invoice the provider is to pay (the payee's, or the client's own).
    public let invoice: String
    /// The client's refund key (compressed): it takes the lock back after the timeout.
    public let refundPublicKey: PublicKey
    /// Which contract to lock into; absent means `taproot_boltz`.
    public let scriptType: ContractType

    public init(requestID: String, quoteID: String, invoice: String, refundPublicKey: PublicKey,
                scriptType: ContractType = .taprootBoltz) {
        self.requestID = requestID
        self.quoteID = quoteID
        self.invoice = invoice
        self.refundPublicKey = refundPublicKey
        self.scriptType = scriptType
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        guard fields.has("direction") else { throw .missingField("direction") }
        guard try SwapDirection.read(fields) == .onchainToLightning else { throw .unsupportedDirection }
        quoteID = try fields.nonEmptyString("quote_id")
        invoice = try fields.nonEmptyString("invoice", maxBytes: Self.maxInvoiceBytes)
        refundPublicKey = try fields.publicKey("refund_pubkey")
        scriptType = fields.has("script_type") ? try fields.rawValue("script_type", as: ContractType.self) : .taprootBoltz
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "direction": .string(SwapDirection.onchainToLightning.rawValue),
            "quote_id": .string(quoteID),
            "invoice": .string(invoice),
            "refund_pubkey": .string(refundPublicKey.compressed.hex),
            "script_type": .string(scriptType.rawValue),
        ])
    }
}
