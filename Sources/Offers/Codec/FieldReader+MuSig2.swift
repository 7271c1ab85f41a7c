import Bitcoin

/// Readers for the cooperative-claim fields: each refuses a value that could never be used
/// (points off the curve, a scalar not below n, bytes that are not one transaction), so
/// the engines only ever see well-formed ones.
extension FieldReader {
    /// A BIP327 public nonce: 66 bytes, two compressed points.
    public func musig2PublicNonce(_ key: String) throws(OffersError) -> MuSig2PublicNonce {
        let bytes = try hex(key, byteCount: MuSig2PublicNonce.byteCount)
        do {
            return try MuSig2PublicNonce(bytes)
        } catch {
            throw .wrongType(field: key, expected: "a MuSig2 public nonce (two compressed secp256k1 points)")
        }
    }

    /// A BIP327 partial signature: 32 bytes, a scalar below the curve order.
    public func musig2PartialSignature(_ key: String) throws(OffersError) -> MuSig2PartialSignature {
        let bytes = try hex(key, byteCount: MuSig2PartialSignature.byteCount)
        guard let signature = try? MuSig2PartialSignature(bytes), signature.isBelowCurveOrder else {
            throw .valueOutOfRange(field: key)
        }
        return signature
    }

    /// A raw transaction in hex, at most `maxBytes` bytes, decoded as Bitcoin Core decodes it
    /// (no trailing bytes).
    public func transaction(_ key: String, maxBytes: Int) throws(OffersError) -> Transaction {
        let text = try string(key)
        // Checked on the text first, so an oversize value is refused before it is decoded.
        guard !text.isEmpty, text.utf8.count <= 2 * maxBytes else { throw .valueOutOfRange(field: key) }
        let bytes = try hex(key, maxBytes: maxBytes)
        do {
            return try Transaction(bytes: bytes)
        } catch {
            throw .wrongType(field: key, expected: "a raw Bitcoin transaction")
        }
    }
}
