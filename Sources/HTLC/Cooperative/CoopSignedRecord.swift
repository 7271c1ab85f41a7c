import Bitcoin

/// What a co-signer records before it sends its partial signature (a reverse provider's
/// and a submarine client's `coop_signed`, a submarine provider's `coop_refund_signed`):
/// the session it signed in and the answer. A replayed request (the same initiator nonce
/// and the same sighash) is answered from this record, without signing again; anything
/// else is a new request and gets a new DeterministicSign nonce (docs/HTLC.md, "Nonce
/// safety").
public struct CoopSignedRecord: Sendable, Hashable {
    /// The initiator's public nonce the co-signer signed against.
    public let initiatorNonce: MuSig2PublicNonce
    /// The co-signer's own public nonce (derived by DeterministicSign).
    public let responderNonce: MuSig2PublicNonce
    /// The key-path sighash signed.
    public let sighash: [UInt8]
    public let partialSignature: MuSig2PartialSignature

    public init(initiatorNonce: MuSig2PublicNonce, responderNonce: MuSig2PublicNonce, sighash: [UInt8],
                partialSignature: MuSig2PartialSignature) {
        self.initiatorNonce = initiatorNonce
        self.responderNonce = responderNonce
        self.sighash = sighash
        self.partialSignature = partialSignature
    }

    /// Whether this record already answers a request with `initiatorNonce` over `sighash`.
    public func answers(initiatorNonce: MuSig2PublicNonce, sighash: [UInt8]) -> Bool {
        self.initiatorNonce == initiatorNonce && self.sighash == sighash
    }
}
