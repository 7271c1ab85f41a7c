/// BIP327 NonceAgg's output: the sums of all signers' first and second nonce points.
/// Either sum may be the point at infinity (nil), which is legitimate and encoded as 33
/// zero bytes; a session then uses the generator in its place, as BIP327 says.
public struct MuSig2AggregateNonce: Sendable, Hashable {
    public static let byteCount = 66

    /// R'1 = sum of the R1s (nil: infinity).
    public let first: PublicKey?
    /// R'2 = sum of the R2s (nil: infinity).
    public let second: PublicKey?

    /// NonceAgg over parsed nonces (which cannot be invalid any more).
    public init(aggregating nonces: [MuSig2PublicNonce]) {
        first = CurvePoint.sum(nonces.map(\.first))
        second = CurvePoint.sum(nonces.map(\.second))
    }

    /// NonceAgg over the nonces as received, blaming the first signer (index into
    /// `serializedNonces`) whose nonce does not parse.
    public init(aggregatingSerialized serializedNonces: [[UInt8]]) throws {
        let nonces = try serializedNonces.enumerated().map { try MuSig2PublicNonce($0.element, signer: $0.offset) }
        self.init(aggregating: nonces)
    }

    /// Parses an aggregate nonce someone else computed; a bad one is an invalid "aggnonce"
    /// (no single signer to blame: it came from whoever aggregated).
    public init(_ bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount,
              let first = CurvePoint.parseExtended(bytes[0..<33]),
              let second = CurvePoint.parseExtended(bytes[33..<66]) else {
            throw BitcoinError.musig2(.invalidContribution(signer: nil, .aggregateNonce))
        }
        self.first = first
        self.second = second
    }

    public var bytes: [UInt8] { CurvePoint.serializeExtended(first) + CurvePoint.serializeExtended(second) }
}

extension MuSig2AggregateNonce: CustomStringConvertible {
    public var description: String { "MuSig2AggregateNonce(\(bytes.hex))" }
}
