import Offers
import Transport

/// `/api/offers`: the provider's terms and the offer a probe would get now (or why there is
/// none: liquidity below the smallest swap), with the liquidity it is priced from.
struct StatusOfferView: Sendable {
    let provider: Bool
    let terms: ProviderTerms?
    let offer: Offer?
    let liquiditySat: Int64
    let waitingSat: Int64
    let feeRateSatPerKvB: Int64?

    var json: JSONValue {
        var members: [String: JSONValue] = ["provider": .bool(provider), "liquidity_sat": .integer(liquiditySat),
                                            "waiting_sat": .integer(waitingSat),
                                            "fee_rate_sat_kvb": feeRateSatPerKvB.map { .integer($0) } ?? .null]
        if let terms {
            members["terms"] = .object([
                "base_fee_sat": .integer(terms.feeModel.baseFeeSat), "fee_ppm": .integer(terms.feeModel.feePPM),
                "min_amount_sat": .integer(terms.effectiveMinAmountSat), "max_amount_sat": .integer(terms.maxAmountSat),
                "required_confirmations": .integer(terms.requiredConfirmations),
                "htlc_timeout_blocks": .integer(terms.htlcTimeoutBlocks),
            ])
        } else {
            members["terms"] = .null
        }
        if let offer {
            members["offer"] = .object([
                "min_amount_sat": .integer(offer.minAmountSat), "max_amount_sat": .integer(offer.maxAmountSat),
                "base_fee_sat": .integer(offer.baseFeeSat), "fee_ppm": .integer(offer.feePPM),
                "onchain_fee_sat": .integer(offer.onchainFeeSat), "required_confirmations": .integer(offer.requiredConfirmations),
                "htlc_timeout_blocks": .integer(offer.htlcTimeoutBlocks), "directions": .array(offer.directions.map { .string($0) }),
            ])
        } else {
            members["offer"] = .null
        }
        return .object(members)
    }
}
