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
/// (`SubmarineRules`) before it answers. `features` says what the client itself takes part
/// in: `musig2` (it co-signs the provider's cooperative key-path claim once it has seen the
/// preimage, and asks for a cooperative refund when the provider cannot pay), sent only to
/// a provider whose offer lists it. Absent is none (older clients), and an older provider
/// ignores the field.
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
    /// Capabilities of the client for this swap (`OfferFeature.musig2`); empty: none.
    public let features: [String]

    public init(requestID: String, quoteID: String, invoice: String, refundPublicKey: PublicKey,
                scriptType: ContractType = .taprootBoltz, features: [String] = []) {
        self.requestID = requestID
        self.quoteID = quoteID
        self.invoice = invoice
        self.refundPublicKey = refundPublicKey
        self.scriptType = scriptType
        self.features = features
    }

    /// Whether the client takes part in cooperative key-path spends of this swap's lock.
    public var cooperates: Bool { features.contains(OfferFeature.musig2) }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        guard fields.has("direction") else { throw .missingField("direction") }
        guard try SwapDirection.read(fields) == .onchainToLightning else { throw .unsupportedDirection }
        quoteID = try fields.nonEmptyString("quote_id")
        invoice = try fields.nonEmptyString("invoice", maxBytes: Self.maxInvoiceBytes)
        refundPublicKey = try fields.publicKey("refund_pubkey")
        scriptType = fields.has("script_type") ? try fields.rawValue("script_type", as: ContractType.self) : .taprootBoltz
        features = fields.has("features") ? try fields.stringArray("features", maxCount: 16) : []
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "direction": .string(SwapDirection.onchainToLightning.rawValue),
            "quote_id": .string(quoteID),
            "invoice": .string(invoice),
            "refund_pubkey": .string(refundPublicKey.compressed.hex),
            "script_type": .string(scriptType.rawValue),
        ]
        // Written only when there is one: a request without is byte for byte what it was.
        if !features.isEmpty { members["features"] = .array(features.map(JSONValue.string)) }
        return SwapCodec.fields(requestID: requestID, members)
    }
}
