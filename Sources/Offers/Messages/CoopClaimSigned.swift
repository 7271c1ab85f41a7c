import Bitcoin
import Transport

/// The co-signer's answer to a `CoopClaimRequest` or a `CoopRefundRequest`: its public
/// nonce (BIP327 DeterministicSign) and its partial signature over the key-path sighash of
/// the transaction in the request. The asker verifies the partial signature before it signs
/// with its own nonce; a bad one sends it to the script path.
public struct CoopClaimSigned: SwapMessageBody, RequestScoped {
    public static let messageType = "CoopClaimSigned"

    public let requestID: String
    public let swapID: String
    public let publicNonce: MuSig2PublicNonce
    public let partialSignature: MuSig2PartialSignature

    public init(requestID: String, swapID: String, publicNonce: MuSig2PublicNonce,
                partialSignature: MuSig2PartialSignature) {
        self.requestID = requestID
        self.swapID = swapID
        self.publicNonce = publicNonce
        self.partialSignature = partialSignature
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        swapID = try fields.nonEmptyString("swap_id")
        publicNonce = try fields.musig2PublicNonce("pubnonce")
        partialSignature = try fields.musig2PartialSignature("partial_signature")
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "swap_id": .string(swapID), "pubnonce": .string(publicNonce.bytes.hex),
            "partial_signature": .string(partialSignature.bytes.hex),
        ])
    }
}
