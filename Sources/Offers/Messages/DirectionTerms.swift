import Transport

/// One direction's terms inside an Offer's `direction_terms`, so one probe learns every
/// direction a provider runs, all under the offer's signature.
///
/// For `ln_to_onchain` the amounts are the lock (X + the client's claim fee) and
/// `onchain_fee_sat` is the provider's lock and refund reserve; for `onchain_to_ln` the
/// amounts are the invoice the provider pays and `onchain_fee_sat` is its claim of the
/// client's lock (`SubmarineFeeEstimate`), which needs at least one confirmation: the
/// provider never pays against a lock a full-RBF replacement could still take back.
public struct DirectionTerms: Sendable, Hashable {
    public let direction: SwapDirection
    public let minAmountSat: Int64
    public let maxAmountSat: Int64
    public let baseFeeSat: Int64
    public let feePPM: Int64
    public let onchainFeeSat: Int64
    public let requiredConfirmations: Int
    public let htlcTimeoutBlocks: Int

    public init(direction: SwapDirection, minAmountSat: Int64, maxAmountSat: Int64, baseFeeSat: Int64, feePPM: Int64,
                onchainFeeSat: Int64, requiredConfirmations: Int, htlcTimeoutBlocks: Int) {
        self.direction = direction
        self.minAmountSat = minAmountSat
        self.maxAmountSat = maxAmountSat
        self.baseFeeSat = baseFeeSat
        self.feePPM = feePPM
        self.onchainFeeSat = onchainFeeSat
        self.requiredConfirmations = requiredConfirmations
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
    }

    /// Reads one entry. An unknown direction is `unsupportedDirection` (the caller skips
    /// such entries); an `onchain_to_ln` entry asking for 0 confirmations is out of range.
    init(fields: FieldReader) throws(OffersError) {
        guard fields.has("direction") else { throw .missingField("direction") }
        direction = try SwapDirection.read(fields)
        minAmountSat = try fields.sat("min_amount_sat")
        maxAmountSat = try fields.sat("max_amount_sat")
        baseFeeSat = try fields.sat("base_fee_sat")
        feePPM = try fields.int64("fee_ppm", in: 0...Amounts.million)
        onchainFeeSat = try fields.sat("onchain_fee_sat")
        let lowest = direction == .onchainToLightning ? 1 : 0
        requiredConfirmations = try fields.int("required_confirmations", in: lowest...1_000)
        htlcTimeoutBlocks = try fields.int("htlc_timeout_blocks", in: 1...65_535)
    }

    var json: JSONValue {
        .object([
            "direction": .string(direction.rawValue),
            "min_amount_sat": .integer(minAmountSat),
            "max_amount_sat": .integer(maxAmountSat),
            "base_fee_sat": .integer(baseFeeSat),
            "fee_ppm": .integer(feePPM),
            "onchain_fee_sat": .integer(onchainFeeSat),
            "required_confirmations": .integer(requiredConfirmations),
            "htlc_timeout_blocks": .integer(htlcTimeoutBlocks),
        ])
    }

    /// The service fee model of these terms.
    public var feeModel: FeeModel { FeeModel(baseFeeSat: baseFeeSat, feePPM: feePPM) }
}
