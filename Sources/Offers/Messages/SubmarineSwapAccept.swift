import Bitcoin
import HTLC
import Transport

/// Provider -> client, `onchain_to_ln`: the swap is set up (`Signed<SubmarineSwapAccept>`).
/// Everything the client needs before it locks: the contract (the provider's claim key,
/// the client's refund key echoed, the invoice's payment hash, the timeout height, the
/// scripts and the address) and the exact amount to lock. Same `type` as the reverse
/// accept (`SwapAccept`), told apart by `"direction": "onchain_to_ln"`.
///
/// The contract is the reverse one with the roles swapped (`ContractRoles.submarine`): the
/// provider claims with the preimage its payment reveals, the client refunds after
/// `timeout_height`.
public struct SubmarineSwapAccept: SwapMessageBody, RequestScoped {
    public static let messageType = SwapAccept.messageType

    public var requestID: String
    public var swapID: String
    public var quoteID: String
    /// The invoice's payment hash: the contract's hash lock.
    public var paymentHash: [UInt8]
    /// The invoice amount the provider pays (the quote's `amount_sat`).
    public var amountSat: Int64
    /// What the client must lock, exactly (the quote's `total_sat`).
    public var totalSat: Int64
    public var scriptType: ContractType
    public var htlcAddress: String
    public var timeoutHeight: UInt32
    /// The provider's key: it claims with the preimage.
    public var claimPublicKey: PublicKey
    /// The client's key (echoed): it refunds after the timeout.
    public var refundPublicKey: PublicKey
    public var scripts: SwapAccept.Scripts

    public init(requestID: String, swapID: String, quoteID: String, paymentHash: [UInt8], amountSat: Int64,
                totalSat: Int64, scriptType: ContractType, htlcAddress: String, timeoutHeight: UInt32,
                claimPublicKey: PublicKey, refundPublicKey: PublicKey, scripts: SwapAccept.Scripts) {
        self.requestID = requestID
        self.swapID = swapID
        self.quoteID = quoteID
        self.paymentHash = paymentHash
        self.amountSat = amountSat
        self.totalSat = totalSat
        self.scriptType = scriptType
        self.htlcAddress = htlcAddress
        self.timeoutHeight = timeoutHeight
        self.claimPublicKey = claimPublicKey
        self.refundPublicKey = refundPublicKey
        self.scripts = scripts
    }

    /// The accept for `contract` (whose roles must be `submarine`), with its scripts and
    /// address filled in from it.
    public init(requestID: String, swapID: String, quoteID: String, amountSat: Int64, totalSat: Int64,
                contract: SwapContract) {
        let terms = contract.terms
        precondition(terms.roles == .submarine, "a submarine accept carries a submarine contract")
        self.init(requestID: requestID, swapID: swapID, quoteID: quoteID, paymentHash: terms.paymentHash,
                  amountSat: amountSat, totalSat: totalSat, scriptType: contract.type,
                  htlcAddress: contract.encodedAddress, timeoutHeight: terms.timeoutHeight,
                  claimPublicKey: terms.claimPublicKey, refundPublicKey: terms.refundPublicKey,
                  scripts: SwapAccept.Scripts(contract: contract))
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        guard fields.has("direction") else { throw .missingField("direction") }
        guard try SwapDirection.read(fields) == .onchainToLightning else { throw .unsupportedDirection }
        swapID = try fields.nonEmptyString("swap_id")
        quoteID = try fields.nonEmptyString("quote_id")
        paymentHash = try fields.hex("payment_hash", byteCount: 32)
        amountSat = try fields.sat("amount_sat")
        totalSat = try fields.int64("total_sat", in: 0...(3 * Amounts.maximumSat))
        scriptType = try fields.rawValue("script_type", as: ContractType.self)
        htlcAddress = try fields.nonEmptyString("htlc_address", maxBytes: 128)
        timeoutHeight = try fields.uint32("timeout_height")
        claimPublicKey = try fields.publicKey("claim_pubkey")
        refundPublicKey = try fields.publicKey("refund_pubkey")
        scripts = try SwapAccept.Scripts(fields: fields, scriptType: scriptType)
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "direction": .string(SwapDirection.onchainToLightning.rawValue),
            "swap_id": .string(swapID),
            "quote_id": .string(quoteID),
            "payment_hash": .string(paymentHash.hex),
            "amount_sat": .integer(amountSat),
            "total_sat": .integer(totalSat),
            "script_type": .string(scriptType.rawValue),
            "htlc_address": .string(htlcAddress),
            "timeout_height": .integer(timeoutHeight),
            "claim_pubkey": .string(claimPublicKey.compressed.hex),
            "refund_pubkey": .string(refundPublicKey.compressed.hex),
        ]
        scripts.write(into: &members)
        return SwapCodec.fields(requestID: requestID, members)
    }
}
