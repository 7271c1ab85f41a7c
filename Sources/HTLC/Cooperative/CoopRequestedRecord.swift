import Bitcoin

/// What the initiator of a cooperative spend records before it sends its request (a
/// reverse client's and a submarine provider's `coop_requested`, a submarine client's
/// `coop_refund_requested`): enough to recognise the co-signer's answer and to show what
/// was asked, and nothing that could sign. The secret nonce is never in it: it lives only
/// in memory, so a crash after this record loses it, and the swap then spends through the
/// script path (it never signs with a nonce rebuilt or read back).
public struct CoopRequestedRecord: Sendable, Hashable {
    /// The initiator's public nonce sent with the request.
    public let publicNonce: MuSig2PublicNonce
    /// The key-path sighash of `unsignedTransaction`: the message both parties sign.
    public let sighash: [UInt8]
    /// The spend as sent, without witness.
    public let unsignedTransaction: Transaction

    public init(publicNonce: MuSig2PublicNonce, sighash: [UInt8], unsignedTransaction: Transaction) {
        self.publicNonce = publicNonce
        self.sighash = sighash
        self.unsignedTransaction = unsignedTransaction
    }
}
