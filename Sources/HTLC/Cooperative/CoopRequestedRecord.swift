import Bitcoin

/// What the client records (`coop_requested`) before it sends a `CoopClaimRequest`: enough
/// to recognise the provider's answer and to show what was asked, and nothing that could
/// sign. The secret nonce is never in it: it lives only in memory, so a crash after this
/// record loses it, and the swap then claims through the script path (it never signs with
/// a nonce rebuilt or read back).
public struct CoopRequestedRecord: Sendable, Hashable {
    /// The client's public nonce sent with the request.
    public let publicNonce: MuSig2PublicNonce
    /// The key-path sighash of `unsignedClaim`: the message both parties sign.
    public let sighash: [UInt8]
    /// The claim as sent, without witness.
    public let unsignedClaim: Transaction

    public init(publicNonce: MuSig2PublicNonce, sighash: [UInt8], unsignedClaim: Transaction) {
        self.publicNonce = publicNonce
        self.sighash = sighash
        self.unsignedClaim = unsignedClaim
    }
}
