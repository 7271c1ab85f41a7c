import Bitcoin
import HTLC
import Transport

/// What a client swap records as `coop_requested` before it sends `CoopClaimRequest`
/// (HTLC's `CoopRequestedRecord`: its public nonce, the sighash, the unsigned key-path
/// claim) and what the script-path claim it stands in for would have been, so the saving
/// can be reported. Never the secret nonce: that lives only in the engine's memory, and a
/// restart ends the round (the claim then goes the script path).
public struct ClientCoopRequest: Sendable, Hashable {
    public let record: CoopRequestedRecord
    /// The script-path claim's output at the same rate: X (plus any over-lock).
    public let scriptPathOutputSat: Int64
    /// The script-path claim's size once signed.
    public let scriptPathVirtualSize: Int

    public init(record: CoopRequestedRecord, scriptPathOutputSat: Int64, scriptPathVirtualSize: Int) {
        self.record = record
        self.scriptPathOutputSat = scriptPathOutputSat
        self.scriptPathVirtualSize = scriptPathVirtualSize
    }

    public var publicNonce: MuSig2PublicNonce { record.publicNonce }
    public var unsignedClaim: Transaction { record.unsignedClaim }
    /// A segwit txid leaves the witness out: the signed key-path claim has this txid.
    public var claimTxid: TransactionID { record.unsignedClaim.txid }

    var json: JSONValue {
        .object([
            "pubnonce": .string(record.publicNonce.bytes.hex),
            "sighash": .string(record.sighash.hex),
            "claim_tx": .string(record.unsignedClaim.serialized.hex),
            "claim_txid": .string(claimTxid.hex),
            "script_path_output_sat": .integer(scriptPathOutputSat),
            "script_path_vsize": .integer(scriptPathVirtualSize),
            // For the books and the scenarios: what the key-path claim sends beyond the
            // script path's (0 for a contact payment; a swap-out's saving). Not read back.
            "key_path_extra_sat": .integer(unsignedClaim.outputs.reduce(0) { $0 + $1.value } - scriptPathOutputSat),
        ])
    }

    init(json: JSONValue) throws(ClientEngineError) {
        guard let nonceHex = json["pubnonce"]?.stringValue, let nonceBytes = [UInt8](hex: nonceHex),
              let sighashHex = json["sighash"]?.stringValue, let sighash = [UInt8](hex: sighashHex), sighash.count == 32,
              let claimHex = json["claim_tx"]?.stringValue, let output = json["script_path_output_sat"]?.int64Value,
              let size = json["script_path_vsize"]?.int64Value else {
            throw .corruptRecord("a coop_request lacks a field")
        }
        do {
            record = CoopRequestedRecord(publicNonce: try MuSig2PublicNonce(nonceBytes), sighash: sighash,
                                         unsignedClaim: try Transaction(hex: claimHex))
        } catch {
            throw .corruptRecord("a coop_request does not decode: \(error)")
        }
        scriptPathOutputSat = output
        scriptPathVirtualSize = Int(size)
    }
}
