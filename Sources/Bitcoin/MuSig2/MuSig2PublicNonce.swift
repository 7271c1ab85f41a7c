/// A signer's BIP327 public nonce: two points R1 = k1·G and R2 = k2·G, sent to the other
/// signers before anyone signs. 66 bytes on the wire (two compressed points).
public struct MuSig2PublicNonce: Sendable, Hashable {
    public static let byteCount = 66

    public let first: PublicKey
    public let second: PublicKey

    init(first: PublicKey, second: PublicKey) {
        self.first = first
        self.second = second
    }

    /// Parses 66 bytes. A value that is not two compressed points is an invalid "pubnonce"
    /// contribution from `signer` (its index in the session, when the caller knows it).
    public init(_ bytes: [UInt8], signer: Int? = nil) throws {
        guard bytes.count == Self.byteCount,
              let first = CurvePoint.parse(bytes[0..<33]),
              let second = CurvePoint.parse(bytes[33..<66]) else {
            throw BitcoinError.musig2(.invalidContribution(signer: signer, .publicNonce))
        }
        self.init(first: first, second: second)
    }

    public var bytes: [UInt8] { first.compressed + second.compressed }
}

extension MuSig2PublicNonce: CustomStringConvertible {
    public var description: String { "MuSig2PublicNonce(\(bytes.hex))" }
}
