import Bitcoin
import HTLC
import Transport

/// What a provider records (`coop_signed`) when it co-signs a client's cooperative claim,
/// before the partial signature may leave: the session (`CoopSignedRecord`: the client's
/// nonce, its own DeterministicSign nonce, the sighash, the partial signature) and the
/// claim's txid, by which it later knows the key-path spend of its lock as its own
/// cooperative claim (the witness, one signature, reveals no preimage).
public struct ProviderCoopClaim: Sendable, Hashable {
    public let record: CoopSignedRecord
    /// The co-signed claim's txid (the witness is not part of it).
    public let claimTxid: TransactionID

    public init(record: CoopSignedRecord, claimTxid: TransactionID) {
        self.record = record
        self.claimTxid = claimTxid
    }

    var json: JSONValue {
        .object([
            "client_pubnonce": .string(record.clientNonce.bytes.hex),
            "provider_pubnonce": .string(record.providerNonce.bytes.hex),
            "sighash": .string(record.sighash.hex),
            "partial_signature": .string(record.partialSignature.bytes.hex),
            "claim_txid": .string(claimTxid.hex),
        ])
    }

    init(json: JSONValue) throws(ProviderError) {
        func bytes(_ key: String) throws(ProviderError) -> [UInt8] {
            guard let hex = json[key]?.stringValue, let value = [UInt8](hex: hex) else {
                throw .corruptRecord("coop_signed without its \(key)")
            }
            return value
        }
        let sighash = try bytes("sighash")
        guard sighash.count == 32 else { throw .corruptRecord("coop_signed with a sighash of \(sighash.count) bytes") }
        do {
            record = CoopSignedRecord(clientNonce: try MuSig2PublicNonce(try bytes("client_pubnonce")),
                                      providerNonce: try MuSig2PublicNonce(try bytes("provider_pubnonce")), sighash: sighash,
                                      partialSignature: try MuSig2PartialSignature(try bytes("partial_signature")))
            claimTxid = try TransactionID(hex: json["claim_txid"]?.stringValue ?? "")
        } catch let error as ProviderError {
            throw error
        } catch {
            throw .corruptRecord("coop_signed does not decode: \(error)")
        }
    }
}
