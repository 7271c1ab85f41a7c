import Bitcoin
import Transport

/// Plain invoices (`POST /v1/invoices`, lnrpc AddInvoice) and hold invoices: LND's
/// `invoicesrpc` sub-server under `/v2/invoices`.
extension LNDRESTClient {
    /// LND answers `{"r_hash", "payment_request", "add_index", "payment_addr"}` (lnrpc
    /// AddInvoiceResponse; r_hash and payment_addr base64, add_index a uint64 string). The
    /// request is decoded here too: a payee hands it on, so it must be what was asked.
    public func addInvoice(amountMsat: UInt64, memo: String, expirySeconds: UInt64,
                           cltvExpiry: UInt64) async throws(LightningBackendError) -> CreatedInvoice {
        let body = JSONValue.object([
            "value_msat": LNDJSON.int64(amountMsat),
            "memo": .string(memo),
            "expiry": LNDJSON.int64(expirySeconds),
            "cltv_expiry": LNDJSON.int64(cltvExpiry),
        ])
        let json = try await call(.post, "/v1/invoices", body: body)
        guard let hash = LNDJSON.bytes(json["r_hash"]), hash.count == 32 else {
            throw malformed("invoices answered without a 32-byte r_hash")
        }
        guard let request = json["payment_request"]?.stringValue, !request.isEmpty else {
            throw malformed("invoices answered without payment_request")
        }
        guard let addIndex = LNDJSON.uint64(json["add_index"]) else {
            throw malformed("invoices answered without add_index")
        }
        guard let decoded = try? InvoiceDecoder.decode(request), decoded.paymentHash == hash,
              (decoded.amountMsat ?? 0) == amountMsat else {
            throw malformed("invoices answered with a payment_request that does not decode to its r_hash and amount")
        }
        return CreatedInvoice(paymentRequest: request, paymentHash: hash, addIndex: addIndex,
                              paymentAddress: LNDJSON.bytes(json["payment_addr"]) ?? decoded.paymentSecret)
    }

    public func addHoldInvoice(paymentHash: [UInt8], amountMsat: UInt64, memo: String, expirySeconds: UInt64,
                               cltvExpiry: UInt64) async throws(LightningBackendError) -> String {
        try Self.check(hash: paymentHash, "payment hash")
        let body = JSONValue.object([
            "hash": LNDJSON.bytes(paymentHash),
            "value_msat": LNDJSON.int64(amountMsat),
            "memo": .string(memo),
            "expiry": LNDJSON.int64(expirySeconds),
            "cltv_expiry": LNDJSON.int64(cltvExpiry),
        ])
        let json = try await call(.post, "/v2/invoices/hodl", body: body)
        guard let request = json["payment_request"]?.stringValue, !request.isEmpty else {
            throw malformed("invoices/hodl answered without payment_request")
        }
        return request
    }

    public func lookupInvoice(paymentHash: [UInt8]) async throws(LightningBackendError) -> InvoiceStatus {
        try Self.check(hash: paymentHash, "payment hash")
        let json = try await call(.get, "/v2/invoices/lookup?payment_hash=\(Self.urlHash(paymentHash))")
        return try Self.invoiceStatus(from: json, url: url)
    }

    public func settleInvoice(preimage: [UInt8]) async throws(LightningBackendError) {
        try Self.check(hash: preimage, "preimage")
        _ = try await call(.post, "/v2/invoices/settle", body: .object(["preimage": LNDJSON.bytes(preimage)]))
    }

    public func cancelInvoice(paymentHash: [UInt8]) async throws(LightningBackendError) {
        try Self.check(hash: paymentHash, "payment hash")
        _ = try await call(.post, "/v2/invoices/cancel", body: .object(["payment_hash": LNDJSON.bytes(paymentHash)]))
    }

    static func check(hash: [UInt8], _ name: String) throws(LightningBackendError) {
        guard hash.count == 32 else { throw .invalidArgument("a \(name) is 32 bytes, not \(hash.count)") }
    }

    /// A hash in a URL: base64url as LND asks, its padding percent-encoded so that no
    /// query parser can take `=` for a separator.
    static func urlHash(_ hash: [UInt8]) -> String {
        var text = ""
        for character in LNDBase64.encodeURLSafe(hash) {
            text += character == "=" ? "%3D" : String(character)
        }
        return text
    }
}
