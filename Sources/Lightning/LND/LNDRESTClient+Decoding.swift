import Bitcoin
import Transport

/// LND's JSON messages read into the backend's value types. A field the swap engine
/// relies on must be present and well-formed; the rest default as LND's do.
extension LNDRESTClient {
    /// `lnrpc.Invoice`.
    static func invoiceStatus(from json: JSONValue, url: String) throws(LightningBackendError) -> InvoiceStatus {
        guard let hash = LNDJSON.bytes(json["r_hash"]), hash.count == 32 else {
            throw .malformedResponse(url: url, reason: "invoice without a 32-byte r_hash")
        }
        guard let stateName = json["state"]?.stringValue, let state = InvoiceStatus.State(rawValue: stateName) else {
            throw .malformedResponse(url: url, reason: "invoice with an unknown state")
        }
        var htlcs: [InvoiceStatus.HTLC] = []
        for htlc in json["htlcs"]?.arrayValue ?? [] {
            guard let amount = LNDJSON.uint64(htlc["amt_msat"]),
                  let expiry = LNDJSON.int64(htlc["expiry_height"]).flatMap({ Int(exactly: $0) }),
                  let stateName = htlc["state"]?.stringValue,
                  let htlcState = InvoiceStatus.HTLC.State(rawValue: stateName) else {
                throw .malformedResponse(url: url, reason: "invoice HTLC without amount, expiry height or state")
            }
            let accept = LNDJSON.int64(htlc["accept_height"]).flatMap { Int(exactly: $0) } ?? 0
            htlcs.append(InvoiceStatus.HTLC(amountMsat: amount, acceptHeight: accept, expiryHeight: expiry, state: htlcState))
        }
        let preimage = LNDJSON.bytes(json["r_preimage"]).flatMap { $0.count == 32 ? $0 : nil }
        return InvoiceStatus(
            paymentHash: hash, state: state, amountMsat: LNDJSON.uint64(json["value_msat"]) ?? 0,
            amountPaidMsat: LNDJSON.uint64(json["amt_paid_msat"]) ?? 0, preimage: preimage,
            paymentRequest: json["payment_request"]?.stringValue ?? "", memo: json["memo"]?.stringValue ?? "",
            creationDate: LNDJSON.uint64(json["creation_date"]) ?? 0, expirySeconds: LNDJSON.uint64(json["expiry"]) ?? 0,
            cltvExpiry: LNDJSON.uint64(json["cltv_expiry"]) ?? 0, htlcs: htlcs)
    }

    /// `lnrpc.Payment`; its hash and preimage are hex strings, not bytes.
    static func paymentUpdate(from json: JSONValue, url: String) throws(LightningBackendError) -> PaymentUpdate {
        guard let hashHex = json["payment_hash"]?.stringValue, let hash = [UInt8](hex: hashHex), hash.count == 32 else {
            throw .malformedResponse(url: url, reason: "payment without a 32-byte payment_hash")
        }
        let status: PaymentUpdate.Status
        switch json["status"]?.stringValue {
        // INITIATED (LND 0.18+) and the deprecated UNKNOWN come before any HTLC is out.
        case "IN_FLIGHT", "INITIATED", "UNKNOWN":
            status = .inFlight
        case "SUCCEEDED":
            guard let hex = json["payment_preimage"]?.stringValue, let preimage = [UInt8](hex: hex), preimage.count == 32,
                  SHA256.hash(preimage) == hash else {
                throw .malformedResponse(url: url, reason: "a succeeded payment without the preimage of its hash")
            }
            status = .succeeded(preimage: preimage)
        case "FAILED":
            status = .failed(PaymentUpdate.FailureReason(lndName: json["failure_reason"]?.stringValue ?? ""))
        default:
            throw .malformedResponse(url: url, reason: "payment with an unknown status")
        }
        var attempts: [PaymentAttempt] = []
        for htlc in json["htlcs"]?.arrayValue ?? [] {
            attempts.append(try paymentAttempt(from: htlc, url: url))
        }
        return PaymentUpdate(paymentHash: hash, status: status, amountMsat: LNDJSON.uint64(json["value_msat"]) ?? 0,
                             feeMsat: LNDJSON.uint64(json["fee_msat"]) ?? 0, attempts: attempts)
    }

    /// `lnrpc.HTLCAttempt`: its status and its route's totals. The hops, the failure and
    /// the times are LND's business; they are skipped whatever they hold.
    static func paymentAttempt(from json: JSONValue, url: String) throws(LightningBackendError) -> PaymentAttempt {
        guard let statusName = json["status"]?.stringValue, let status = PaymentAttempt.Status(rawValue: statusName) else {
            throw .malformedResponse(url: url, reason: "payment HTLC with an unknown status")
        }
        guard let route = json["route"], route.objectValue != nil,
              let timeLock = LNDJSON.int64(route["total_time_lock"]).flatMap({ Int(exactly: $0) }), timeLock >= 0 else {
            throw .malformedResponse(url: url, reason: "payment HTLC without a route's total_time_lock")
        }
        return PaymentAttempt(status: status, totalTimeLock: timeLock,
                              totalAmountMsat: LNDJSON.uint64(route["total_amt_msat"]) ?? 0,
                              totalFeesMsat: LNDJSON.uint64(route["total_fees_msat"]) ?? 0)
    }

    /// `lnrpc.PayReq`.
    static func paymentRequestDetails(from json: JSONValue, url: String) throws(LightningBackendError) -> PaymentRequestDetails {
        guard let destinationHex = json["destination"]?.stringValue, let destinationBytes = [UInt8](hex: destinationHex),
              let destination = try? PublicKey(destinationBytes) else {
            throw .malformedResponse(url: url, reason: "payreq without a valid destination")
        }
        guard let hashHex = json["payment_hash"]?.stringValue, let hash = [UInt8](hex: hashHex), hash.count == 32 else {
            throw .malformedResponse(url: url, reason: "payreq without a 32-byte payment_hash")
        }
        return PaymentRequestDetails(
            destination: destination, paymentHash: hash, amountMsat: LNDJSON.uint64(json["num_msat"]) ?? 0,
            timestamp: LNDJSON.uint64(json["timestamp"]) ?? 0, expirySeconds: LNDJSON.uint64(json["expiry"]) ?? 0,
            description: json["description"]?.stringValue ?? "", cltvExpiry: LNDJSON.uint64(json["cltv_expiry"]) ?? 0,
            paymentAddress: LNDJSON.bytes(json["payment_addr"]) ?? [])
    }
}
