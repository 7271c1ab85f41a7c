import Transport

/// Client -> provider: a price for swapping `amount_sat` (the amount to be locked, which
/// the client sets to X + its claim fee) under offer `offer_id`.
public struct QuoteRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "QuoteRequest"

    public let requestID: String
    public let offerID: String
    public let direction: String
    public let amountSat: Int64

    public init(requestID: String, offerID: String, direction: SwapDirection = .lightningToOnchain, amountSat: Int64) {
        self.requestID = requestID
        self.offerID = offerID
        self.direction = direction.rawValue
        self.amountSat = amountSat
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        offerID = try fields.nonEmptyString("offer_id")
        direction = try fields.nonEmptyString("direction", maxBytes: 64)
        amountSat = try fields.sat("amount_sat")
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "offer_id": .string(offerID),
            "direction": .string(direction),
            "amount_sat": .integer(amountSat),
        ])
    }
}
