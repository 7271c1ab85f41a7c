import Bitcoin
import Transport

/// The claimer -> the co-signer, both sides offering `musig2`: "here is the preimage,
/// co-sign this key-path claim of the lock". Answered by `CoopClaimSigned`, or a `Reject`
/// when the other side will not cooperate (the claimer then takes the script path).
///
/// - `ln_to_onchain`: the client asks its provider. The preimage is sent before any claim
///   is broadcast: the client does so only under the rule of docs/HTLC.md ("Revealing the
///   preimage for cooperation").
/// - `onchain_to_ln`: the provider, having paid the invoice, asks its client over the
///   connection the client dialled; the preimage is the client's proof of payment, and
///   `swap_id` the provider's (the accept's).
public struct CoopClaimRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "CoopClaimRequest"
    /// A one-input claim with a few outputs is a few hundred bytes; anything near this is
    /// not a claim and is refused before it is parsed.
    public static let maxClaimTransactionBytes = 4_096

    public let requestID: String
    public let swapID: String
    public let preimage: [UInt8]
    /// The claimer's BIP327 public nonce for this claim (66 bytes on the wire).
    public let publicNonce: MuSig2PublicNonce
    /// The claim to co-sign, without witness: its key-path sighash is the message.
    public let claimTransaction: Transaction

    public init(requestID: String, swapID: String, preimage: [UInt8], publicNonce: MuSig2PublicNonce,
                claimTransaction: Transaction) {
        self.requestID = requestID
        self.swapID = swapID
        self.preimage = preimage
        self.publicNonce = publicNonce
        self.claimTransaction = claimTransaction
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        swapID = try fields.nonEmptyString("swap_id")
        preimage = try fields.hex("preimage", byteCount: 32)
        publicNonce = try fields.musig2PublicNonce("pubnonce")
        claimTransaction = try fields.transaction("claim_tx", maxBytes: Self.maxClaimTransactionBytes)
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "swap_id": .string(swapID), "preimage": .string(preimage.hex), "pubnonce": .string(publicNonce.bytes.hex),
            "claim_tx": .string(claimTransaction.serialized.hex),
        ])
    }
}
