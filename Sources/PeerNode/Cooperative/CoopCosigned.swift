import Bitcoin
import HTLC
import Offers
import Transport

/// What a co-signer records before its partial signature may leave: the session
/// (`CoopSignedRecord`: the initiator's nonce, its own DeterministicSign nonce, the
/// sighash, the partial signature) and the spend's txid, by which it later knows the
/// key-path spend of the lock for what it co-signed (the witness, one signature, shows
/// nothing else). A reverse provider's and a submarine client's `coop_signed` (a claim), a
/// submarine provider's `coop_refund_signed` (a refund).
public struct CoopCosigned: Sendable, Hashable {
    public let kind: CoopSpendKind
    public let record: CoopSignedRecord
    /// The co-signed spend's txid (the witness is not part of it).
    public let txid: TransactionID

    public init(kind: CoopSpendKind = .claim, record: CoopSignedRecord, txid: TransactionID) {
        self.kind = kind
        self.record = record
        self.txid = txid
    }

    /// Which party started a round of `kind` in `direction`: the claimer of a claim (a
    /// reverse client, a submarine provider), the client for a refund.
    static func initiator(of kind: CoopSpendKind, in direction: SwapDirection) -> SwapRole {
        kind == .claim && direction == .onchainToLightning ? .provider : .client
    }

    /// Stored as `coop` (a claim) or `coop_refund` (a refund). The nonces are named by the
    /// party that made them (`client_pubnonce`, `provider_pubnonce`), so the stored events
    /// of both nodes read alike in either direction.
    func json(direction: SwapDirection) -> JSONValue {
        let (initiatorKey, responderKey) = Self.nonceKeys(kind, direction)
        return .object([
            initiatorKey: .string(record.initiatorNonce.bytes.hex),
            responderKey: .string(record.responderNonce.bytes.hex),
            "sighash": .string(record.sighash.hex),
            "partial_signature": .string(record.partialSignature.bytes.hex),
            "\(kind.rawValue)_txid": .string(txid.hex),
        ])
    }

    /// Reads a stored co-signature back; nil when a field is missing or does not decode.
    init?(json: JSONValue, kind: CoopSpendKind = .claim, direction: SwapDirection) {
        let (initiatorKey, responderKey) = Self.nonceKeys(kind, direction)
        func bytes(_ key: String) -> [UInt8]? { json[key]?.stringValue.flatMap { [UInt8](hex: $0) } }
        guard let sighash = bytes("sighash"), sighash.count == 32,
              let initiator = bytes(initiatorKey).flatMap({ try? MuSig2PublicNonce($0) }),
              let responder = bytes(responderKey).flatMap({ try? MuSig2PublicNonce($0) }),
              let signature = bytes("partial_signature").flatMap({ try? MuSig2PartialSignature($0) }),
              let txid = json["\(kind.rawValue)_txid"]?.stringValue.flatMap({ try? TransactionID(hex: $0) }) else {
            return nil
        }
        self.init(kind: kind, record: CoopSignedRecord(initiatorNonce: initiator, responderNonce: responder, sighash: sighash,
                                                       partialSignature: signature), txid: txid)
    }

    private static func nonceKeys(_ kind: CoopSpendKind, _ direction: SwapDirection) -> (String, String) {
        initiator(of: kind, in: direction) == .client ? ("client_pubnonce", "provider_pubnonce")
            : ("provider_pubnonce", "client_pubnonce")
    }
}
