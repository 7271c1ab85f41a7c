import Transport

/// Client -> provider: a price for swapping `amount_sat` under offer `offer_id`.
///
/// `ln_to_onchain` (the default when `direction` is absent, as older clients send it):
/// `amount_sat` is the amount to be locked, X + the client's claim fee. `onchain_to_ln`:
/// `amount_sat` is the invoice amount the provider is to pay, and `payment_hash` (optional)
/// binds the quote to that invoice's hash.
public struct QuoteRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "QuoteRequest"

    public let requestID: String
    public let offerID: String
    public let direction: String
    public let amountSat: Int64
    /// `onchain_to_ln` only: the payment hash of the invoice the quote is for.
    public let paymentHash: [UInt8]?

    public init(requestID: String, offerID: String, direction: SwapDirection = .lightningToOnchain, amountSat: Int64,
                paymentHash: [UInt8]? = nil) {
        self.requestID = requestID
        self.offerID = offerID
        self.direction = direction.rawValue
        self.amountSat = amountSat
        self.paymentHash = paymentHash
    }

    /// The direction, or nil for a name this build does not know.
    public var swapDirection: SwapDirection? { SwapDirection(rawValue: direction) }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        offerID = try fields.nonEmptyString("offer_id")
        // Absent is the only direction older clients know; a name we do not know is kept
        // and refused by the provider (`unsupportedDirection`), like before.
        direction = fields.has("direction") ? try fields.nonEmptyString("direction", maxBytes: 64)
            : SwapDirection.lightningToOnchain.rawValue
        amountSat = try fields.sat("amount_sat")
        paymentHash = fields.has("payment_hash") ? try fields.hex("payment_hash", byteCount: 32) : nil
        if paymentHash != nil, direction != SwapDirection.onchainToLightning.rawValue {
            throw .valueOutOfRange(field: "payment_hash")
        }
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "offer_id": .string(offerID),
            // Always written: older providers require it.
            "direction": .string(direction),
            "amount_sat": .integer(amountSat),
        ]
        if let paymentHash { members["payment_hash"] = .string(paymentHash.hex) }
        return SwapCodec.fields(requestID: requestID, members)
    }
}
