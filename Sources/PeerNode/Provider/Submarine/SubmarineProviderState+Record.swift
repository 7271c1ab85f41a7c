import Bitcoin
import Transport

/// The stored form of a submarine provider state: the kind is the event's name, the data
/// its whole payload, so the last event alone rebuilds the state (as `ProviderSwapState`).
extension SubmarineProviderState {
    public var eventData: JSONValue {
        switch self {
        case .accepted, .released:
            return .object([:])
        case .claimed(let mined):
            return .object(mined.map { ["mined_claim_txid": .string($0.hex)] } ?? [:])
        case .lockSeen(let lock), .lockConfirmed(let lock):
            return .object(["lock": lock.json])
        case .paymentIntent(let lock, let limit), .paymentInFlight(let lock, let limit):
            return .object(["lock": lock.json, "cltv_limit": .integer(limit)])
        case .paid(let lock, let preimage):
            // Stored (a restarted node claims with it), never logged; the payee knows it
            // already and the claim makes it public.
            return .object(["lock": lock.json, "preimage": .string(preimage.hex)])
        case .coopRequested(let lock, let preimage, let round):
            return .object(["lock": lock.json, "preimage": .string(preimage.hex), "coop_request": round.json])
        case .claimBroadcast(let lock, let preimage, let claim):
            return .object(["lock": lock.json, "preimage": .string(preimage.hex), "claim": claim.json])
        case .abandoned(let why):
            return .object(["why": why.json])
        case .lockMismatch(let txid, let mismatch):
            return .object(["lock_txid": .string(txid.hex), "mismatch": mismatch.json])
        case .paymentFailed(let lock, let reason):
            return .object(["lock": lock.json, "reason": .string(reason)])
        case .coopRefundSigned(let lock, let reason, let cosigned):
            return .object(["lock": lock.json, "reason": .string(reason),
                            "coop_refund": cosigned.json(direction: .onchainToLightning)])
        case .claimLost(let lock, let txid):
            return .object(["lock": lock.json, "spending_txid": .string(txid.hex)])
        }
    }

    /// Rebuilds the state from a stored event; a record missing a part says which.
    public init(kind name: String, data: JSONValue) throws(ProviderError) {
        guard let kind = Kind(rawValue: name) else { throw .corruptRecord("unknown submarine provider event \(name)") }
        func lock() throws(ProviderError) -> SubmarineLock {
            guard let value = data["lock"] else { throw .corruptRecord("\(name) without its lock") }
            return try SubmarineLock(json: value)
        }
        func preimage() throws(ProviderError) -> [UInt8] {
            guard let hex = data["preimage"]?.stringValue, let preimage = [UInt8](hex: hex), preimage.count == 32 else {
                throw .corruptRecord("\(name) without its preimage")
            }
            return preimage
        }
        func limit() throws(ProviderError) -> UInt32 {
            guard let limit = data["cltv_limit"]?.uint64Value, limit <= UInt64(UInt32.max) else {
                throw .corruptRecord("\(name) without its CLTV limit")
            }
            return UInt32(limit)
        }
        func txid(_ key: String) throws(ProviderError) -> TransactionID {
            guard let hex = data[key]?.stringValue, let txid = try? TransactionID(hex: hex) else {
                throw .corruptRecord("\(name) without its \(key)")
            }
            return txid
        }
        switch kind {
        case .accepted: self = .accepted
        case .lockSeen: self = .lockSeen(try lock())
        case .lockConfirmed: self = .lockConfirmed(try lock())
        case .paymentIntent: self = .paymentIntent(try lock(), cltvLimit: try limit())
        case .paymentInFlight: self = .paymentInFlight(try lock(), cltvLimit: try limit())
        case .paid: self = .paid(try lock(), preimage: try preimage())
        case .coopRequested:
            guard let json = data["coop_request"], let round = CoopRound(json: json) else {
                throw .corruptRecord("\(name) without a readable coop_request")
            }
            self = .coopRequested(try lock(), preimage: try preimage(), round)
        case .claimBroadcast:
            guard let claim = data["claim"] else { throw .corruptRecord("\(name) without its claim") }
            self = .claimBroadcast(try lock(), preimage: try preimage(), try SubmarineClaim(json: claim))
        case .claimed:
            // Older records carry nothing: their last version is the one counted.
            self = .claimed(minedClaimTxid: data["mined_claim_txid"] == nil ? nil : try txid("mined_claim_txid"))
        case .abandoned:
            guard let why = data["why"] else { throw .corruptRecord("\(name) without its reason") }
            self = .abandoned(try SubmarineGiveUp(json: why))
        case .lockMismatch:
            guard let mismatch = data["mismatch"] else { throw .corruptRecord("\(name) without its mismatch") }
            self = .lockMismatch(txid: try txid("lock_txid"), try SubmarineLockMismatch(json: mismatch))
        case .paymentFailed:
            guard let reason = data["reason"]?.stringValue else { throw .corruptRecord("\(name) without its reason") }
            self = .paymentFailed(try lock(), reason: reason)
        case .coopRefundSigned:
            guard let reason = data["reason"]?.stringValue, let json = data["coop_refund"],
                  let cosigned = CoopCosigned(json: json, kind: .refund, direction: .onchainToLightning) else {
                throw .corruptRecord("\(name) without its reason or a readable coop_refund")
            }
            self = .coopRefundSigned(try lock(), reason: reason, cosigned)
        case .released: self = .released
        case .claimLost: self = .claimLost(try lock(), spendingTxid: try txid("spending_txid"))
        }
    }
}
