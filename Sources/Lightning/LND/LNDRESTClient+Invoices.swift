import Bitcoin
import Transport

/// Hold invoices: LND's `invoicesrpc` sub-server under `/v2/invoices`.
extension LNDRESTClient {
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
