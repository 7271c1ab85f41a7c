import Transport

/// Provider -> client: a signed price for one amount (`Signed<Quote>`). Single use, bound
/// to the client that asked, valid until `valid_until_unix` (300 s by default).
///
/// It adds up: `fee_sat = service_fee_sat + onchain_fee_sat` and
/// `total_sat = amount_sat + fee_sat`. `ln_to_onchain`: `amount_sat` is the lock and
/// `total_sat` what the hold invoice asks for. `onchain_to_ln`: `amount_sat` is the
/// invoice the provider pays, `onchain_fee_sat` its claim, and `total_sat` exactly what
/// the client must lock; `payment_hash` echoes the request's when it named one.
public struct Quote: SwapMessageBody, RequestScoped {
    public static let messageType = "Quote"

    public var requestID: String
    public var quoteID: String
    public var offerID: String
    public var direction: String
    /// `ln_to_onchain`: the amount the provider locks on chain. `onchain_to_ln`: the
    /// invoice amount the provider pays.
    public var amountSat: Int64
    public var feeSat: Int64
    public var serviceFeeSat: Int64
    public var onchainFeeSat: Int64
    public var feeRateSatPerVByte: Int64
    public var totalSat: Int64
    public var htlcTimeoutBlocks: Int
    public var requiredConfirmations: Int
    public var validUntilUnix: UInt64
    /// `onchain_to_ln`: the invoice's payment hash, when the request named it.
    public var paymentHash: [UInt8]?

    public init(requestID: String, quoteID: String, offerID: String, direction: SwapDirection = .lightningToOnchain,
                amountSat: Int64, serviceFeeSat: Int64, onchainFeeSat: Int64, feeRateSatPerVByte: Int64,
                htlcTimeoutBlocks: Int, requiredConfirmations: Int, validUntilUnix: UInt64, paymentHash: [UInt8]? = nil) {
        self.requestID = requestID
        self.quoteID = quoteID
        self.offerID = offerID
        self.direction = direction.rawValue
        self.amountSat = amountSat
        self.serviceFeeSat = serviceFeeSat
        self.onchainFeeSat = onchainFeeSat
        feeSat = serviceFeeSat + onchainFeeSat
        totalSat = amountSat + feeSat
        self.feeRateSatPerVByte = feeRateSatPerVByte
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
        self.requiredConfirmations = requiredConfirmations
        self.validUntilUnix = validUntilUnix
        self.paymentHash = paymentHash
    }

    /// The direction, or nil for a name this build does not know.
    public var swapDirection: SwapDirection? { SwapDirection(rawValue: direction) }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        quoteID = try fields.nonEmptyString("quote_id")
        offerID = try fields.nonEmptyString("offer_id")
        direction = try fields.nonEmptyString("direction", maxBytes: 64)
        amountSat = try fields.sat("amount_sat")
        feeSat = try fields.sat("fee_sat")
        serviceFeeSat = try fields.sat("service_fee_sat")
        onchainFeeSat = try fields.sat("onchain_fee_sat")
        feeRateSatPerVByte = try fields.int64("fee_rate_sat_vb", in: 0...1_000_000)
        // Sums of three bounded amounts cannot overflow, so totals are checked later, by
        // policy, not here.
        totalSat = try fields.int64("total_sat", in: 0...(3 * Amounts.maximumSat))
        htlcTimeoutBlocks = try fields.int("htlc_timeout_blocks", in: 1...65_535)
        requiredConfirmations = try fields.int("required_confirmations", in: 0...1_000)
        validUntilUnix = try fields.uint64("valid_until_unix")
        paymentHash = fields.has("payment_hash") ? try fields.hex("payment_hash", byteCount: 32) : nil
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "quote_id": .string(quoteID),
            "offer_id": .string(offerID),
            "direction": .string(direction),
            "amount_sat": .integer(amountSat),
            "fee_sat": .integer(feeSat),
            "service_fee_sat": .integer(serviceFeeSat),
            "onchain_fee_sat": .integer(onchainFeeSat),
            "fee_rate_sat_vb": .integer(feeRateSatPerVByte),
            "total_sat": .integer(totalSat),
            "htlc_timeout_blocks": .integer(htlcTimeoutBlocks),
            "required_confirmations": .integer(requiredConfirmations),
            "valid_until_unix": .integer(validUntilUnix),
        ]
        if let paymentHash { members["payment_hash"] = .string(paymentHash.hex) }
        return SwapCodec.fields(requestID: requestID, members)
    }
}
