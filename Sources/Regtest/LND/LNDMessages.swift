import Bitcoin
import Lightning
import Transport

/// The simulator's values written as LND's REST messages (`lnrpc.Invoice`,
/// `lnrpc.Payment`, `lnrpc.PayReq`, ...), every field present as LND's gateway emits
/// them. Fields the simulator has no notion of (route hints, AMP, custom records,
/// blinded paths) are written empty.
enum LNDMessages {
    /// `lnrpc.Invoice`. `channelID` stands in for the channel the HTLCs arrived on.
    static func invoice(_ invoice: SimulatedInvoice, channelID: UInt64) -> JSONValue {
        let features = (try? InvoiceDecoder.decode(invoice.paymentRequest))?.features ?? FeatureBits(bits: [])
        return .object([
            "memo": .string(invoice.memo),
            "r_preimage": LNDJSON.bytes(invoice.preimage ?? []),
            "r_hash": LNDJSON.bytes(invoice.paymentHash),
            "value": LNDJSON.int64(invoice.valueMsat / 1000),
            "value_msat": LNDJSON.int64(invoice.valueMsat),
            "settled": .bool(invoice.state == .settled),
            "creation_date": LNDJSON.int64(invoice.creationDate),
            "settle_date": LNDJSON.int64(invoice.settleDate ?? 0),
            "payment_request": .string(invoice.paymentRequest),
            "description_hash": LNDJSON.bytes([]),
            "expiry": LNDJSON.int64(invoice.expirySeconds),
            "fallback_addr": .string(""),
            "cltv_expiry": LNDJSON.int64(invoice.cltvExpiry),
            "route_hints": .array([]),
            "private": .bool(false),
            "add_index": LNDJSON.int64(invoice.addIndex),
            "settle_index": LNDJSON.int64(invoice.settleIndex),
            // LND's deprecated `amt_paid` is in millisatoshis, despite its neighbours.
            "amt_paid": LNDJSON.int64(invoice.amountPaidMsat),
            "amt_paid_sat": LNDJSON.int64(invoice.amountPaidMsat / 1000),
            "amt_paid_msat": LNDJSON.int64(invoice.amountPaidMsat),
            "state": .string(invoice.state.lndName),
            "htlcs": .array(invoice.htlcs.enumerated().map { index, htlc in
                self.htlc(htlc, index: UInt64(index), channelID: channelID)
            }),
            "features": featureMap(features),
            "is_keysend": .bool(false),
            "payment_addr": LNDJSON.bytes(invoice.paymentAddress),
            "is_amp": .bool(false),
            "amp_invoice_state": .object([:]),
        ])
    }

    /// `lnrpc.InvoiceHTLC`: heights are int32 (numbers), amounts and times int64 (strings).
    static func htlc(_ htlc: InvoiceHTLC, index: UInt64, channelID: UInt64) -> JSONValue {
        .object([
            "chan_id": LNDJSON.int64(channelID),
            "htlc_index": LNDJSON.int64(index),
            "amt_msat": LNDJSON.int64(htlc.amountMsat),
            "accept_height": LNDJSON.int32(htlc.acceptHeight),
            "accept_time": LNDJSON.int64(htlc.acceptTime),
            "resolve_time": LNDJSON.int64(htlc.resolveTime ?? 0),
            "expiry_height": LNDJSON.int32(htlc.expiryHeight),
            "state": .string(htlc.state.lndName),
            "custom_records": .object([:]),
            // A single-part payment: the whole amount.
            "mpp_total_amt_msat": LNDJSON.int64(htlc.amountMsat),
            "amp": .null,
        ])
    }

    /// `lnrpc.Payment`, as SendPaymentV2 and TrackPaymentV2 stream it. Its hash and
    /// preimage are hex strings (not bytes); the preimage is all zeros until known.
    static func payment(_ payment: SimulatedPayment) -> JSONValue {
        .object([
            "payment_hash": .string(payment.paymentHash.hex),
            "value": LNDJSON.int64(payment.valueMsat / 1000),
            "creation_date": LNDJSON.int64(payment.creationDate),
            "fee": LNDJSON.int64(payment.feeMsat / 1000),
            "payment_preimage": .string((payment.preimage ?? [UInt8](repeating: 0, count: 32)).hex),
            "value_sat": LNDJSON.int64(payment.valueMsat / 1000),
            "value_msat": LNDJSON.int64(payment.valueMsat),
            "payment_request": .string(payment.paymentRequest),
            "status": .string(payment.status.lndName),
            "fee_sat": LNDJSON.int64(payment.feeMsat / 1000),
            "fee_msat": LNDJSON.int64(payment.feeMsat),
            "creation_time_ns": LNDJSON.int64(payment.creationDate * 1_000_000_000),
            "htlcs": .array(payment.htlcs.map(attempt)),
            "payment_index": LNDJSON.int64(payment.paymentIndex),
            "failure_reason": .string(payment.failureReason.lndName),
            "first_hop_custom_records": .object([:]),
        ])
    }

    /// `lnrpc.HTLCAttempt`: its route crosses the routing node to the payee. Like LND,
    /// `total_time_lock` is the payer's own HTLC expiry (tip + final delta + padding + the
    /// routing node's delta) while each hop's `expiry` is the one it forwards, the
    /// payee's. uint32 fields are numbers, int64 and uint64 strings, bytes base64.
    static func attempt(_ attempt: SimulatedHTLCAttempt) -> JSONValue {
        let totalMsat = attempt.amountMsat + attempt.feeMsat
        let forwarder = hop(channelID: channelID(for: attempt.routingNodeKey), key: attempt.routingNodeKey,
                            expiry: attempt.finalExpiry, forwardMsat: attempt.amountMsat, feeMsat: attempt.feeMsat,
                            mpp: .null)
        let payee = hop(channelID: channelID(for: attempt.payeeKey), key: attempt.payeeKey, expiry: attempt.finalExpiry,
                        forwardMsat: attempt.amountMsat, feeMsat: 0,
                        mpp: .object(["payment_addr": LNDJSON.bytes(attempt.paymentAddress),
                                      "total_amt_msat": LNDJSON.int64(attempt.amountMsat)]))
        let failure: JSONValue = attempt.failure.map { failure in
            .object([
                "code": .string(failure.code),
                "channel_update": .null,
                "htlc_msat": LNDJSON.int64(attempt.amountMsat),
                "onion_sha_256": LNDJSON.bytes([]),
                "cltv_expiry": LNDJSON.int32(0),
                "flags": LNDJSON.int32(0),
                "failure_source_index": LNDJSON.int32(failure.sourceIndex),
                "height": LNDJSON.int32(failure.height),
            ])
        } ?? .null
        return .object([
            "attempt_id": LNDJSON.int64(attempt.attemptID),
            "status": .string(attempt.status.lndName),
            "route": .object([
                "total_time_lock": LNDJSON.int32(attempt.totalTimeLock),
                "total_fees": LNDJSON.int64(attempt.feeMsat / 1000),
                "total_amt": LNDJSON.int64(totalMsat / 1000),
                "hops": .array([forwarder, payee]),
                "total_fees_msat": LNDJSON.int64(attempt.feeMsat),
                "total_amt_msat": LNDJSON.int64(totalMsat),
                "first_hop_amount_msat": LNDJSON.int64(totalMsat),
                "custom_channel_data": LNDJSON.bytes([]),
            ]),
            "attempt_time_ns": LNDJSON.int64(attempt.attemptTimeNs),
            "resolve_time_ns": LNDJSON.int64(attempt.resolveTimeNs ?? 0),
            "failure": failure,
            "preimage": LNDJSON.bytes(attempt.preimage ?? []),
        ])
    }

    /// `lnrpc.Hop`.
    private static func hop(channelID: UInt64, key: PublicKey, expiry: Int, forwardMsat: UInt64, feeMsat: UInt64,
                            mpp: JSONValue) -> JSONValue {
        .object([
            "chan_id": LNDJSON.int64(channelID),
            "chan_capacity": LNDJSON.int64(0),
            "amt_to_forward": LNDJSON.int64(forwardMsat / 1000),
            "fee": LNDJSON.int64(feeMsat / 1000),
            "expiry": LNDJSON.int32(expiry),
            "amt_to_forward_msat": LNDJSON.int64(forwardMsat),
            "fee_msat": LNDJSON.int64(feeMsat),
            "pub_key": .string(key.compressed.hex),
            "tlv_payload": .bool(true),
            "mpp_record": mpp,
            "amp_record": .null,
            "custom_records": .object([:]),
            "metadata": LNDJSON.bytes([]),
            "blinding_point": LNDJSON.bytes([]),
            "encrypted_data": LNDJSON.bytes([]),
            "total_amt_msat": LNDJSON.int64(0),
        ])
    }

    /// A stable stand-in for the channel a node's HTLCs arrive on (the simulator has no
    /// channels): derived from the node key, so it differs per node. Short channel id
    /// layout (block, tx, output), kept below 2^63 so no reader taking it as int64 sees
    /// it negative.
    static func channelID(for key: PublicKey) -> UInt64 {
        SHA256.hash(key.compressed).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 1
    }

    /// `lnrpc.PayReq` (DecodePayReq): hashes and keys as hex, `payment_addr` as bytes.
    static func payReq(_ invoice: Invoice) -> JSONValue {
        let amountMsat = invoice.amountMsat ?? 0
        return .object([
            "destination": .string(invoice.payeeNodeID.compressed.hex),
            "payment_hash": .string(invoice.paymentHash.hex),
            "num_satoshis": LNDJSON.int64(amountMsat / 1000),
            "timestamp": LNDJSON.int64(invoice.timestamp),
            "expiry": LNDJSON.int64(invoice.expirySeconds),
            "description": .string(invoice.descriptionText ?? ""),
            "description_hash": .string(invoice.descriptionHash?.hex ?? ""),
            "fallback_addr": .string(""),
            "cltv_expiry": LNDJSON.int64(invoice.minFinalCLTVExpiryDelta),
            "route_hints": .array([]),
            "payment_addr": LNDJSON.bytes(invoice.paymentSecret),
            "num_msat": LNDJSON.int64(amountMsat),
            "features": featureMap(invoice.features),
            "blinded_paths": .array([]),
        ])
    }

    /// `map<uint32, lnrpc.Feature>`: keys are the bit numbers as strings.
    static func featureMap(_ features: FeatureBits) -> JSONValue {
        var map: [String: JSONValue] = [:]
        for bit in features.bits {
            map[String(bit)] = .object([
                "name": .string(featureName(bit)),
                "is_required": .bool(bit % 2 == 0),
                "is_known": .bool(FeatureBits.known.contains(bit & ~1)),
            ])
        }
        return .object(map)
    }

    /// LND's names for the invoice features (lnwire's feature name table).
    private static func featureName(_ bit: Int) -> String {
        switch bit & ~1 {
        case FeatureBits.varOnionOptin: return "tlv-onion"
        case FeatureBits.paymentSecret: return "payment-addr"
        case FeatureBits.basicMPP: return "multi-path-payments"
        case FeatureBits.routeBlinding: return "route-blinding"
        case FeatureBits.paymentMetadata: return "payment-metadata"
        default: return "unknown"
        }
    }
}
