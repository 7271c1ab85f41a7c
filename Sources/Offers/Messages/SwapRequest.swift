import Bitcoin
import HTLC
import Transport

/// Client -> provider, `ln_to_onchain`: commit to quote `quote_id` with the client's payment
/// hash (it holds the preimage) and claim key. Resending the same request returns the same
/// accept. Written without `direction`, as older clients do (`SubmarineSwapRequest` is the
/// other direction's request, under the same `type`).
public struct SwapRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "SwapRequest"

    public let requestID: String
    public let quoteID: String
    /// SHA-256 of the client's preimage, 32 bytes.
    public let paymentHash: [UInt8]
    /// The client's claim key (compressed).
    public let claimPublicKey: PublicKey
    /// Which contract to lock into; absent means `taproot_boltz` (DESIGN 5's default).
    public let scriptType: ContractType

    public init(requestID: String, quoteID: String, paymentHash: [UInt8], claimPublicKey: PublicKey,
                scriptType: ContractType = .taprootBoltz) {
        self.requestID = requestID
        self.quoteID = quoteID
        self.paymentHash = paymentHash
        self.claimPublicKey = claimPublicKey
        self.scriptType = scriptType
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        // An `onchain_to_ln` request is a `SubmarineSwapRequest`; older clients send no direction.
        guard try SwapDirection.read(fields) == .lightningToOnchain else { throw .unsupportedDirection }
        quoteID = try fields.nonEmptyString("quote_id")
        paymentHash = try fields.hex("payment_hash", byteCount: 32)
        claimPublicKey = try fields.publicKey("claim_pubkey")
        scriptType = fields.has("script_type") ? try fields.rawValue("script_type", as: ContractType.self) : .taprootBoltz
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "quote_id": .string(quoteID),
            "payment_hash": .string(paymentHash.hex),
            "claim_pubkey": .string(claimPublicKey.compressed.hex),
            "script_type": .string(scriptType.rawValue),
        ])
    }
}
