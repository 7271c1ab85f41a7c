import Bitcoin
import HTLC
import Transport

/// What the initiator of a cooperative key-path spend records before its request leaves
/// (HTLC's `CoopRequestedRecord`: its public nonce, the sighash, the unsigned spend) and
/// what the script-path spend it stands in for would have been, so the saving can be
/// reported: a reverse client's and a submarine provider's `coop_requested` (a claim), a
/// submarine client's `coop_refund_requested` (a refund). Never the secret nonce: that
/// lives only in the engine's memory, and a restart ends the round (the spend then takes
/// the script path).
public struct CoopRound: Sendable, Hashable {
    public let kind: CoopSpendKind
    public let record: CoopRequestedRecord
    /// The script-path spend's output at the same rate: a claim's X (plus any over-lock),
    /// a refund's lock less its fee.
    public let scriptPathOutputSat: Int64
    /// The script-path spend's size once signed.
    public let scriptPathVirtualSize: Int

    public init(kind: CoopSpendKind = .claim, record: CoopRequestedRecord, scriptPathOutputSat: Int64,
                scriptPathVirtualSize: Int) {
        self.kind = kind
        self.record = record
        self.scriptPathOutputSat = scriptPathOutputSat
        self.scriptPathVirtualSize = scriptPathVirtualSize
    }

    public var publicNonce: MuSig2PublicNonce { record.publicNonce }
    public var unsignedTransaction: Transaction { record.unsignedTransaction }
    /// A segwit txid leaves the witness out: the signed key-path spend has this txid.
    public var txid: TransactionID { record.unsignedTransaction.txid }

    /// Stored as `coop_request` (a claim) or `coop_refund_request` (a refund), with the
    /// transaction under `claim_tx` or `refund_tx`.
    var json: JSONValue {
        .object([
            "pubnonce": .string(record.publicNonce.bytes.hex),
            "sighash": .string(record.sighash.hex),
            "\(kind.rawValue)_tx": .string(record.unsignedTransaction.serialized.hex),
            "\(kind.rawValue)_txid": .string(txid.hex),
            "script_path_output_sat": .integer(scriptPathOutputSat),
            "script_path_vsize": .integer(scriptPathVirtualSize),
            // For the books and the scenarios: what the key-path spend sends beyond the
            // script path's (0 for a contact payment; a swap-out's saving). Not read back.
            "key_path_extra_sat": .integer(unsignedTransaction.outputs.reduce(0) { $0 + $1.value } - scriptPathOutputSat),
        ])
    }

    /// Reads a stored round back; nil when a field is missing or does not decode (the
    /// caller says which record is corrupt).
    init?(json: JSONValue, kind: CoopSpendKind = .claim) {
        guard let nonceHex = json["pubnonce"]?.stringValue, let nonceBytes = [UInt8](hex: nonceHex),
              let nonce = try? MuSig2PublicNonce(nonceBytes),
              let sighashHex = json["sighash"]?.stringValue, let sighash = [UInt8](hex: sighashHex), sighash.count == 32,
              let transactionHex = json["\(kind.rawValue)_tx"]?.stringValue,
              let transaction = try? Transaction(hex: transactionHex),
              let output = json["script_path_output_sat"]?.int64Value, let size = json["script_path_vsize"]?.int64Value else {
            return nil
        }
        self.init(kind: kind, record: CoopRequestedRecord(publicNonce: nonce, sighash: sighash, unsignedTransaction: transaction),
                  scriptPathOutputSat: output, scriptPathVirtualSize: Int(size))
    }
}
