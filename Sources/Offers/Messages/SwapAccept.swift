import Bitcoin
import HTLC
import Transport

/// Provider -> client, `ln_to_onchain`: the swap is set up (`Signed<SwapAccept>`). Everything the client
/// needs to check before paying: the hold invoice, the contract (keys, timeout, and its
/// scripts: `swap_tree` for `taproot_boltz`, `witness_script` for `p2wsh_v2` and the retired `p2wsh`), where the lock
/// will go, and the amounts of the quote it redeems.
public struct SwapAccept: SwapMessageBody, RequestScoped {
    public static let messageType = "SwapAccept"
    /// Scripts of these contracts are about 100 bytes; anything far larger is not ours.
    static let maxScriptBytes = 1_000

    /// The scripts the lock pays, as the provider computed them.
    public enum Scripts: Sendable, Equatable {
        case taproot(claimLeaf: [UInt8], refundLeaf: [UInt8])
        case witnessScript([UInt8])
    }

    public var requestID: String
    public var swapID: String
    public var quoteID: String
    /// BOLT11 hold invoice for `total_sat`, paying `payment_hash`.
    public var invoice: String
    public var paymentHash: [UInt8]
    /// The lock's value (the quote's `amount_sat`).
    public var amountSat: Int64
    /// The invoice amount (the quote's `total_sat`).
    public var totalSat: Int64
    public var scriptType: ContractType
    public var htlcAddress: String
    public var timeoutHeight: UInt32
    public var refundPublicKey: PublicKey
    public var claimPublicKey: PublicKey
    public var scripts: Scripts

    public init(requestID: String, swapID: String, quoteID: String, invoice: String, paymentHash: [UInt8],
                amountSat: Int64, totalSat: Int64, scriptType: ContractType, htlcAddress: String,
                timeoutHeight: UInt32, refundPublicKey: PublicKey, claimPublicKey: PublicKey, scripts: Scripts) {
        self.requestID = requestID
        self.swapID = swapID
        self.quoteID = quoteID
        self.invoice = invoice
        self.paymentHash = paymentHash
        self.amountSat = amountSat
        self.totalSat = totalSat
        self.scriptType = scriptType
        self.htlcAddress = htlcAddress
        self.timeoutHeight = timeoutHeight
        self.refundPublicKey = refundPublicKey
        self.claimPublicKey = claimPublicKey
        self.scripts = scripts
    }

    /// The accept for `contract`, with its scripts and address filled in from it.
    public init(requestID: String, swapID: String, quoteID: String, invoice: String, amountSat: Int64,
                totalSat: Int64, contract: SwapContract) {
        let terms = contract.terms
        self.init(requestID: requestID, swapID: swapID, quoteID: quoteID, invoice: invoice,
                  paymentHash: terms.paymentHash, amountSat: amountSat, totalSat: totalSat, scriptType: contract.type,
                  htlcAddress: contract.encodedAddress, timeoutHeight: terms.timeoutHeight,
                  refundPublicKey: terms.refundPublicKey, claimPublicKey: terms.claimPublicKey,
                  scripts: Scripts(contract: contract))
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        // An `onchain_to_ln` accept is a `SubmarineSwapAccept`; older providers send no direction.
        guard try SwapDirection.read(fields) == .lightningToOnchain else { throw .unsupportedDirection }
        swapID = try fields.nonEmptyString("swap_id")
        quoteID = try fields.nonEmptyString("quote_id")
        invoice = try fields.nonEmptyString("invoice", maxBytes: 8_192)
        paymentHash = try fields.hex("payment_hash", byteCount: 32)
        amountSat = try fields.sat("amount_sat")
        totalSat = try fields.int64("total_sat", in: 0...(3 * Amounts.maximumSat))
        scriptType = try fields.rawValue("script_type", as: ContractType.self)
        htlcAddress = try fields.nonEmptyString("htlc_address", maxBytes: 128)
        timeoutHeight = try fields.uint32("timeout_height")
        refundPublicKey = try fields.publicKey("refund_pubkey")
        claimPublicKey = try fields.publicKey("claim_pubkey")
        scripts = try Scripts(fields: fields, scriptType: scriptType)
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "swap_id": .string(swapID),
            "quote_id": .string(quoteID),
            "invoice": .string(invoice),
            "payment_hash": .string(paymentHash.hex),
            "amount_sat": .integer(amountSat),
            "total_sat": .integer(totalSat),
            "script_type": .string(scriptType.rawValue),
            "htlc_address": .string(htlcAddress),
            "timeout_height": .integer(timeoutHeight),
            "refund_pubkey": .string(refundPublicKey.compressed.hex),
            "claim_pubkey": .string(claimPublicKey.compressed.hex),
        ]
        scripts.write(into: &members)
        return SwapCodec.fields(requestID: requestID, members)
    }
}

extension SwapAccept.Scripts {
    /// The scripts of `contract`, as an accept of either direction sends them.
    public init(contract: SwapContract) {
        switch contract {
        case .taprootBoltz(let taproot):
            self = .taproot(claimLeaf: taproot.claimLeaf.script.bytes, refundLeaf: taproot.refundLeaf.script.bytes)
        case .p2wsh(let p2wsh):
            self = .witnessScript(p2wsh.witnessScript.bytes)
        }
    }

    /// `swap_tree: {claim_leaf, refund_leaf}` for `taproot_boltz`, `witness_script` for the P2WSH types.
    init(fields: FieldReader, scriptType: ContractType) throws(OffersError) {
        switch scriptType {
        case .taprootBoltz:
            let tree = try fields.object("swap_tree")
            self = .taproot(claimLeaf: try tree.hex("claim_leaf", maxBytes: SwapAccept.maxScriptBytes),
                            refundLeaf: try tree.hex("refund_leaf", maxBytes: SwapAccept.maxScriptBytes))
        case .p2wsh, .p2wshUnsized:
            self = .witnessScript(try fields.hex("witness_script", maxBytes: SwapAccept.maxScriptBytes))
        }
    }

    func write(into members: inout [String: JSONValue]) {
        switch self {
        case .taproot(let claimLeaf, let refundLeaf):
            members["swap_tree"] = .object(["claim_leaf": .string(claimLeaf.hex), "refund_leaf": .string(refundLeaf.hex)])
        case .witnessScript(let script):
            members["witness_script"] = .string(script.hex)
        }
    }
}
