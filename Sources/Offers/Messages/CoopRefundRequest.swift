import Bitcoin
import Transport

/// Client -> provider (`onchain_to_ln`, both sides offering `musig2`): "co-sign this
/// key-path refund of my lock", asked once the provider said it cannot pay
/// (`CoopRefundOffer`). The refund pays the client's own wallet: the provider checks only
/// that it spends exactly the swap's lock, and signs only while its payment is tracked to
/// a final failure (docs/HTLC.md, "Cooperative refund"). Answered by `CoopClaimSigned` (the
/// co-signer's answer, whatever it signs), or a `Reject`: the client then refunds through
/// the script path after the timeout, which stays valid whatever happens.
public struct CoopRefundRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "CoopRefundRequest"

    public let requestID: String
    public let swapID: String
    /// The client's BIP327 public nonce for this refund (66 bytes on the wire).
    public let publicNonce: MuSig2PublicNonce
    /// The refund to co-sign, without witness: its key-path sighash is the message.
    public let refundTransaction: Transaction

    public init(requestID: String, swapID: String, publicNonce: MuSig2PublicNonce, refundTransaction: Transaction) {
        self.requestID = requestID
        self.swapID = swapID
        self.publicNonce = publicNonce
        self.refundTransaction = refundTransaction
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        swapID = try fields.nonEmptyString("swap_id")
        publicNonce = try fields.musig2PublicNonce("pubnonce")
        refundTransaction = try fields.transaction("refund_tx", maxBytes: CoopClaimRequest.maxClaimTransactionBytes)
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "swap_id": .string(swapID), "pubnonce": .string(publicNonce.bytes.hex),
            "refund_tx": .string(refundTransaction.serialized.hex),
        ])
    }
}
