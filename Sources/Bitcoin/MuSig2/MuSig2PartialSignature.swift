/// A signer's BIP327 partial signature: a 32-byte big-endian scalar s_i. Any 32 bytes are
/// taken as received; whether they are a valid partial signature (below n, and matching
/// the signer's key and nonce) is only known when a session verifies or aggregates them.
public struct MuSig2PartialSignature: Sendable, Hashable {
    public static let byteCount = 32

    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw BitcoinError.musig2(.invalidLength(what: "a MuSig2 partial signature", expected: Self.byteCount, got: bytes.count))
        }
        self.bytes = bytes
    }

    init(scalar: Secp256k1Scalar) { bytes = scalar.bytes }

    /// s_i, or nil when it is not below n (BIP327: an invalid "psig").
    var scalar: Secp256k1Scalar? { Secp256k1Scalar(exactly: bytes) }

    /// Whether s_i is below n, so that it can be a partial signature at all (a decoder
    /// refuses anything else outright instead of waiting for a verify to fail).
    public var isBelowCurveOrder: Bool { scalar != nil }
}

extension MuSig2PartialSignature: CustomStringConvertible {
    public var description: String { "MuSig2PartialSignature(\(bytes.hex))" }
}
