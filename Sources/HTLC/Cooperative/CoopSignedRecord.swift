import Bitcoin

/// What the provider records (`coop_signed`) before it sends its partial signature: the
/// session it signed in and the answer. A replayed request (the same client nonce and the
/// same sighash) is answered from this record, without signing again; anything else is a
/// new request and gets a new DeterministicSign nonce (docs/HTLC.md, "Nonce safety").
public struct CoopSignedRecord: Sendable, Hashable {
    /// The client's public nonce the provider signed against.
    public let clientNonce: MuSig2PublicNonce
    /// The provider's own public nonce (derived by DeterministicSign).
    public let providerNonce: MuSig2PublicNonce
    /// The key-path sighash signed.
    public let sighash: [UInt8]
    public let partialSignature: MuSig2PartialSignature

    public init(clientNonce: MuSig2PublicNonce, providerNonce: MuSig2PublicNonce, sighash: [UInt8],
                partialSignature: MuSig2PartialSignature) {
        self.clientNonce = clientNonce
        self.providerNonce = providerNonce
        self.sighash = sighash
        self.partialSignature = partialSignature
    }

    /// Whether this record already answers a request with `clientNonce` over `sighash`.
    public func answers(clientNonce: MuSig2PublicNonce, sighash: [UInt8]) -> Bool {
        self.clientNonce == clientNonce && self.sighash == sighash
    }
}
