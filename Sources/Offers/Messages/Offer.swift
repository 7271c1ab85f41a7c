import Transport

/// Provider -> client: the terms it swaps on now. Signed (`Signed<Offer>`).
///
/// `max_amount_sat` never exceeds what the provider can lock right now. The fee for an
/// amount is `base_fee_sat + floor(amount × fee_ppm / 1e6) + onchain_fee_sat` (DESIGN 7).
///
/// The top-level terms are those of `ln_to_onchain`, which every client reads (a provider
/// running only `onchain_to_ln` puts that direction's terms there, and older clients skip
/// it by its `directions`). `direction_terms` lists every direction's terms, so one probe
/// learns them all under one signature; an offer from an older provider has none, and its
/// top-level terms are its `ln_to_onchain` ones.
public struct Offer: SwapMessageBody, RequestScoped {
    public static let messageType = "Offer"

    public var requestID: String
    public var offerID: String
    /// The provider's identity; the signature must verify against it, and it must be the
    /// pubky the client dialled.
    public var providerPubky: Pubky
    /// `Network` raw value (`mainnet`, `regtest`, ...), kept as text so an offer for a
    /// network this build does not know is still read and reported, not a decode error.
    public var network: String
    /// `SwapDirection` raw values; unknown ones are kept and ignored.
    public var directions: [String]
    public var minAmountSat: Int64
    public var maxAmountSat: Int64
    public var baseFeeSat: Int64
    public var feePPM: Int64
    public var onchainFeeSat: Int64
    /// Whole sat/vB the provider's on-chain fee was priced at (rounded up, for display).
    public var feeRateSatPerVByte: Int64
    /// The exact rate `onchain_fee_sat` was computed from, in sat per 1,000 vbytes, so a
    /// client can recompute it (`OnchainFeeEstimate`); nil in offers from providers that
    /// predate the field.
    public var feeRateSatPerKvB: Int64?
    public var requiredConfirmations: Int
    public var htlcTimeoutBlocks: Int
    public var validUntilUnix: UInt64
    public var protocolVersion: Int64
    /// Free-form capability names (`OfferFeature` has the ones this node knows).
    public var features: [String]
    /// Every direction's terms (`direction_terms`); empty in offers from older providers.
    public var directionTerms: [DirectionTerms]
    /// At most this many entries in `direction_terms`.
    static let maxDirectionTerms = 8

    public init(requestID: String, offerID: String, providerPubky: Pubky, network: String, directions: [String],
                minAmountSat: Int64, maxAmountSat: Int64, baseFeeSat: Int64, feePPM: Int64, onchainFeeSat: Int64,
                feeRateSatPerVByte: Int64, feeRateSatPerKvB: Int64? = nil, requiredConfirmations: Int, htlcTimeoutBlocks: Int, validUntilUnix: UInt64,
                protocolVersion: Int64 = ProtocolVersion.current, features: [String], directionTerms: [DirectionTerms] = []) {
        self.requestID = requestID
        self.offerID = offerID
        self.providerPubky = providerPubky
        self.network = network
        self.directions = directions
        self.minAmountSat = minAmountSat
        self.maxAmountSat = maxAmountSat
        self.baseFeeSat = baseFeeSat
        self.feePPM = feePPM
        self.onchainFeeSat = onchainFeeSat
        self.feeRateSatPerVByte = feeRateSatPerVByte
        self.feeRateSatPerKvB = feeRateSatPerKvB
        self.requiredConfirmations = requiredConfirmations
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
        self.validUntilUnix = validUntilUnix
        self.protocolVersion = protocolVersion
        self.features = features
        self.directionTerms = directionTerms
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        offerID = try fields.nonEmptyString("offer_id")
        providerPubky = try fields.pubky("provider_pkarr")
        network = try fields.nonEmptyString("network", maxBytes: 32)
        directions = try fields.stringArray("directions")
        minAmountSat = try fields.sat("min_amount_sat")
        maxAmountSat = try fields.sat("max_amount_sat")
        baseFeeSat = try fields.sat("base_fee_sat")
        feePPM = try fields.int64("fee_ppm", in: 0...Amounts.million)
        onchainFeeSat = try fields.sat("onchain_fee_sat")
        feeRateSatPerVByte = try fields.int64("fee_rate_sat_vb", in: 0...1_000_000)
        feeRateSatPerKvB = try fields.optionalInt64("fee_rate_sat_kvb", in: 0...1_000_000_000)
        requiredConfirmations = try fields.int("required_confirmations", in: 0...1_000)
        htlcTimeoutBlocks = try fields.int("htlc_timeout_blocks", in: 1...65_535)
        validUntilUnix = try fields.uint64("valid_until_unix")
        protocolVersion = try fields.int64("protocol_version", in: 0...Int64(UInt32.max))
        features = try fields.stringArray("features")
        directionTerms = []
        if fields.has("direction_terms") {
            for entry in try fields.objectArray("direction_terms", maxCount: Self.maxDirectionTerms) {
                // A direction this build does not know is a later one: skipped, as in `directions`.
                if entry.has("direction"), let name = entry.members["direction"]?.stringValue,
                   SwapDirection(rawValue: name) == nil { continue }
                directionTerms.append(try DirectionTerms(fields: entry))
            }
        }
        try checkDirectionTerms()
    }

    /// Nothing accepted half: each entry names a direction of `directions`, once, and the
    /// `ln_to_onchain` entry repeats the top-level terms exactly (two different prices under
    /// one signature would leave the client guessing which one binds).
    private func checkDirectionTerms() throws(OffersError) {
        var seen: Set<SwapDirection> = []
        for terms in directionTerms {
            guard seen.insert(terms.direction).inserted, directions.contains(terms.direction.rawValue) else {
                throw .valueOutOfRange(field: "direction_terms")
            }
            if terms.direction == .lightningToOnchain, terms != topLevelTerms(.lightningToOnchain) {
                throw .valueOutOfRange(field: "direction_terms")
            }
        }
        // Once listed, every direction we know that `directions` names has its entry: no
        // direction is left to guess from the top-level terms.
        if !directionTerms.isEmpty {
            for direction in SwapDirection.allCases where directions.contains(direction.rawValue) && !seen.contains(direction) {
                throw .valueOutOfRange(field: "direction_terms")
            }
        }
    }

    private func topLevelTerms(_ direction: SwapDirection) -> DirectionTerms {
        DirectionTerms(direction: direction, minAmountSat: minAmountSat, maxAmountSat: maxAmountSat,
                       baseFeeSat: baseFeeSat, feePPM: feePPM, onchainFeeSat: onchainFeeSat,
                       requiredConfirmations: requiredConfirmations, htlcTimeoutBlocks: htlcTimeoutBlocks)
    }

    public var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "offer_id": .string(offerID),
            "provider_pkarr": .string(providerPubky.z32),
            "network": .string(network),
            "directions": .array(directions.map(JSONValue.string)),
            "min_amount_sat": .integer(minAmountSat),
            "max_amount_sat": .integer(maxAmountSat),
            "base_fee_sat": .integer(baseFeeSat),
            "fee_ppm": .integer(feePPM),
            "onchain_fee_sat": .integer(onchainFeeSat),
            "fee_rate_sat_vb": .integer(feeRateSatPerVByte),
            "required_confirmations": .integer(requiredConfirmations),
            "htlc_timeout_blocks": .integer(htlcTimeoutBlocks),
            "valid_until_unix": .integer(validUntilUnix),
            "protocol_version": .integer(protocolVersion),
            "features": .array(features.map(JSONValue.string)),
        ]
        if let feeRateSatPerKvB { fields["fee_rate_sat_kvb"] = .integer(feeRateSatPerKvB) }
        if !directionTerms.isEmpty { fields["direction_terms"] = .array(directionTerms.map(\.json)) }
        return SwapCodec.fields(requestID: requestID, fields)
    }

    /// The provider's fee model for this offer.
    public var feeModel: FeeModel { FeeModel(baseFeeSat: baseFeeSat, feePPM: feePPM) }

    public func supports(_ direction: SwapDirection) -> Bool { terms(for: direction) != nil }

    /// The terms of `direction`, or nil when the offer does not run it: its
    /// `direction_terms` entry, or for `ln_to_onchain` from an older provider (no entries),
    /// the top-level terms. A direction listed in `directions` without terms is not run.
    public func terms(for direction: SwapDirection) -> DirectionTerms? {
        guard directions.contains(direction.rawValue) else { return nil }
        if let listed = directionTerms.first(where: { $0.direction == direction }) { return listed }
        return direction == .lightningToOnchain ? topLevelTerms(direction) : nil
    }
}
