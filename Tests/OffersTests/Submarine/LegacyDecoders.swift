import Bitcoin
import HTLC
@testable import Offers
import Transport

/// The decoders of a peer built before `onchain_to_ln`, frozen here field for field as
/// they read these messages then (required fields, same ranges), so a change to today's
/// decoders cannot hide that older peers would refuse a new reply.
enum Legacy {
    /// The Offer as older clients read it: no `direction_terms`, `directions` a plain list.
    struct Offer: SwapMessageBody {
        static let messageType = "Offer"
        let requestID: String
        let offerID: String
        let providerPubky: Pubky
        let directions: [String]
        let minAmountSat: Int64
        let maxAmountSat: Int64
        let baseFeeSat: Int64
        let feePPM: Int64
        let onchainFeeSat: Int64
        let requiredConfirmations: Int
        let htlcTimeoutBlocks: Int

        init(fields: FieldReader) throws(OffersError) {
            requestID = try fields.requestID()
            offerID = try fields.nonEmptyString("offer_id")
            providerPubky = try fields.pubky("provider_pkarr")
            _ = try fields.nonEmptyString("network", maxBytes: 32)
            directions = try fields.stringArray("directions")
            minAmountSat = try fields.sat("min_amount_sat")
            maxAmountSat = try fields.sat("max_amount_sat")
            baseFeeSat = try fields.sat("base_fee_sat")
            feePPM = try fields.int64("fee_ppm", in: 0...Amounts.million)
            onchainFeeSat = try fields.sat("onchain_fee_sat")
            _ = try fields.int64("fee_rate_sat_vb", in: 0...1_000_000)
            _ = try fields.optionalInt64("fee_rate_sat_kvb", in: 0...1_000_000_000)
            requiredConfirmations = try fields.int("required_confirmations", in: 0...1_000)
            htlcTimeoutBlocks = try fields.int("htlc_timeout_blocks", in: 1...65_535)
            _ = try fields.uint64("valid_until_unix")
            _ = try fields.int64("protocol_version", in: 0...Int64(UInt32.max))
            _ = try fields.stringArray("features")
        }

        var fields: [String: JSONValue] { [:] }

        /// What an older router asked before using an offer.
        var runsReverse: Bool { directions.contains("ln_to_onchain") }
    }

    /// The QuoteRequest as older providers read it: `direction` required.
    struct QuoteRequest: SwapMessageBody {
        static let messageType = "QuoteRequest"
        let direction: String
        let amountSat: Int64

        init(fields: FieldReader) throws(OffersError) {
            _ = try fields.requestID()
            _ = try fields.nonEmptyString("offer_id")
            direction = try fields.nonEmptyString("direction", maxBytes: 64)
            amountSat = try fields.sat("amount_sat")
        }

        var fields: [String: JSONValue] { [:] }
    }

    /// One Endpoints entry as older clients read it: `type`, `address` and `network`
    /// required on every entry, or the whole reply fails.
    struct Endpoints: SwapMessageBody {
        static let messageType = "Endpoints"
        let entries: [(type: String, address: String, network: String)]

        init(fields: FieldReader) throws(OffersError) {
            _ = try fields.requestID()
            var entries: [(String, String, String)] = []
            for entry in try fields.objectArray("endpoints", maxCount: 16) {
                entries.append((try entry.nonEmptyString("type", maxBytes: 64),
                                try entry.nonEmptyString("address", maxBytes: 1_024),
                                try entry.nonEmptyString("network", maxBytes: 32)))
            }
            self.entries = entries
        }

        var fields: [String: JSONValue] { [:] }

        static func == (lhs: Endpoints, rhs: Endpoints) -> Bool { lhs.entries.map(\.address) == rhs.entries.map(\.address) }

        /// What an older payer did: the first on-chain entry on its network.
        func onchainAddress(network: String) -> String? {
            entries.first { $0.type == "onchain" && $0.network == network }?.address
        }
    }

    /// The reverse SwapRequest as older providers read it.
    struct SwapRequest: SwapMessageBody {
        static let messageType = "SwapRequest"

        init(fields: FieldReader) throws(OffersError) {
            _ = try fields.requestID()
            _ = try fields.nonEmptyString("quote_id")
            _ = try fields.hex("payment_hash", byteCount: 32)
            _ = try fields.publicKey("claim_pubkey")
        }

        var fields: [String: JSONValue] { [:] }
    }
}

extension Legacy.Offer: Equatable {}
extension Legacy.QuoteRequest: Equatable {}
extension Legacy.SwapRequest: Equatable {}
