import Bitcoin
import HTLC
import Transport

/// A client swap's state: its phase and the facts gathered so far. Stored as the data of
/// each event (the last event is the state), so a restart rebuilds it from the store
/// alone. It never holds the preimage or a key: those derive from the seed and the
/// swap index whenever they are needed.
public struct ClientSwapState: Sendable, Hashable {
    public var phase: ClientSwapPhase
    /// When the payment was started (Unix seconds): the give-up timer counts from here.
    public var paidAtUnix: UInt64?
    /// The contract's timeout height (from the accept); the claim rule counts from it.
    /// Older records lack it; the engine fills it from the stored accept on resume.
    public var timeoutHeight: Int?
    public var lock: ClientLockSighting?
    public var verifiedLock: LockOutput?
    /// The claim last signed (the first one, or the latest fee bump).
    public var claim: Transaction?
    public var claimConfirmations: Int
    /// The txid of every claim version signed (the first, then each fee bump), oldest
    /// first: any of them may be the one that confirms. Older records lack it: their
    /// `claim` is then the only version known.
    public var claimTxids: [TransactionID]
    /// Whether the client's own node accepted the claim (first broadcast or rebroadcast):
    /// from then on the preimage is public and may be pushed. Absent in older records,
    /// read as false: a resumed claim is then broadcast again before any push.
    public var claimAccepted: Bool
    /// The tip at which the node first accepted the current claim version: the count of
    /// blocks it has stayed unconfirmed, for `ClaimPolicy.bumpDue`. Nil until then, after
    /// each new version, and in older records (read as "unknown": a bump is due).
    public var claimVersionAcceptedHeight: Int?
    /// The claim version found in a block when it is not the last one signed (an earlier
    /// version confirmed before its bump): the one whose output the destination got, which
    /// the books count. Nil while none is mined, or when the last version is.
    public var minedClaimTxid: TransactionID?
    /// The cooperative round, once one was recorded (`coop_requested`): its public nonce,
    /// sighash and unsigned key-path claim. Kept in every later event, so the stored log
    /// shows what was signed under which nonce.
    public var coopRequest: CoopRound?
    /// Why the recorded round ended without a key-path claim (a refusal, silence, a bad
    /// partial signature, a restart): the claim then went the script path. Nil while the
    /// round is open, and after a key-path claim.
    public var coopFallback: String?
    /// Set by the final phases.
    public var outcome: ClientSwapOutcome?

    public init(phase: ClientSwapPhase, paidAtUnix: UInt64? = nil, timeoutHeight: Int? = nil, lock: ClientLockSighting? = nil,
                verifiedLock: LockOutput? = nil, claim: Transaction? = nil, claimConfirmations: Int = 0,
                claimAccepted: Bool = false, claimTxids: [TransactionID] = [], outcome: ClientSwapOutcome? = nil) {
        self.phase = phase
        self.paidAtUnix = paidAtUnix
        self.timeoutHeight = timeoutHeight
        self.lock = lock
        self.verifiedLock = verifiedLock
        self.claim = claim
        self.claimConfirmations = claimConfirmations
        self.claimAccepted = claimAccepted
        self.claimTxids = claimTxids
        self.outcome = outcome
    }

    /// Every claim version's txid, oldest first (the stored `claim` alone for older records).
    public var claimVersions: [TransactionID] {
        guard let claim else { return claimTxids }
        return claimTxids.contains(claim.txid) ? claimTxids : claimTxids + [claim.txid]
    }

    /// Whether `spender` (a transaction spending the lock) is a claim of this swap: a version
    /// on record, or any transaction whose witness carries the preimage, which only our claim
    /// key can sign for (an earlier version an older record did not keep). Anything else
    /// spending the lock is the provider's refund.
    public func isOwnClaim(_ spender: Transaction, preimage: [UInt8]) -> Bool {
        claimVersions.contains(spender.txid) || spender.inputs.contains { $0.witness.stack.contains(preimage) }
    }

    /// Whether the claim on record is the cooperative key-path claim (one signature in its
    /// witness, the transaction the provider co-signed). A contact payment's script-path
    /// claim has the same txid (same input and outputs; the txid leaves the witness out),
    /// so the witness decides.
    public var claimIsKeyPath: Bool {
        guard let claim, let coopRequest, claim.txid == coopRequest.txid else { return false }
        return claim.inputs.first?.witness.stack.count == 1
    }

    // MARK: stored form

    /// The event data: every fact, transactions as raw hex.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["claim_confirmations": .integer(claimConfirmations)]
        if let paidAtUnix { members["paid_at"] = .integer(paidAtUnix) }
        if let timeoutHeight { members["timeout_height"] = .integer(timeoutHeight) }
        if let lock {
            members["lock_tx"] = .string(lock.transaction.serialized.hex)
            members["lock_confirmations"] = .integer(lock.confirmations)
            members["lock_source"] = .string(lock.source.rawValue)
            if let index = lock.outputIndex { members["lock_vout"] = .integer(index) }
        }
        if let verifiedLock {
            members["verified_lock"] = .object([
                "txid": .string(verifiedLock.outPoint.txid.hex),
                "vout": .integer(verifiedLock.outPoint.index),
                "value_sat": .integer(verifiedLock.value),
            ])
        }
        if let claim {
            members["claim_tx"] = .string(claim.serialized.hex)
            // Derived (not read back): shown by `swap show` while the claim itself is withheld.
            members["claim_path"] = .string(claimIsKeyPath ? "key_path" : "script_path")
        }
        if claimAccepted { members["claim_accepted"] = .bool(true) }
        if let claimVersionAcceptedHeight { members["claim_version_accepted_height"] = .integer(claimVersionAcceptedHeight) }
        if !claimTxids.isEmpty { members["claim_txids"] = .array(claimTxids.map { .string($0.hex) }) }
        if let minedClaimTxid { members["mined_claim_txid"] = .string(minedClaimTxid.hex) }
        if let coopRequest { members["coop_request"] = coopRequest.json }
        if let coopFallback { members["coop_fallback"] = .string(coopFallback) }
        if let outcome {
            members["outcome"] = .object(["reason": .string(outcome.reason), "funds": .string(outcome.funds.rawValue)])
        }
        return .object(members)
    }

    /// Reads the state back from an event of kind `kind` and its data.
    public init(kind: String, data: JSONValue) throws(ClientEngineError) {
        guard let phase = ClientSwapPhase(rawValue: kind) else { throw .corruptRecord("unknown event kind \(kind)") }
        self.init(phase: phase)
        paidAtUnix = data["paid_at"]?.uint64Value
        timeoutHeight = data["timeout_height"]?.int64Value.map { Int($0) }
        claimConfirmations = Int(data["claim_confirmations"]?.int64Value ?? 0)
        claimAccepted = data["claim_accepted"]?.boolValue ?? false
        claimVersionAcceptedHeight = data["claim_version_accepted_height"]?.int64Value.map { Int($0) }
        do {
            if let hex = data["lock_tx"]?.stringValue {
                let source = data["lock_source"]?.stringValue.flatMap(ClientLockSighting.Source.init(rawValue:)) ?? .chain
                lock = ClientLockSighting(transaction: try Transaction(hex: hex),
                                          outputIndex: data["lock_vout"]?.int64Value.map { Int($0) },
                                          confirmations: Int(data["lock_confirmations"]?.int64Value ?? 0),
                                          source: source)
            }
            if let verified = data["verified_lock"], let txid = verified["txid"]?.stringValue,
               let vout = verified["vout"]?.uint64Value, let value = verified["value_sat"]?.int64Value {
                verifiedLock = LockOutput(outPoint: OutPoint(txid: try TransactionID(hex: txid), index: UInt32(vout)),
                                          value: value)
            }
            if let hex = data["claim_tx"]?.stringValue { claim = try Transaction(hex: hex) }
            claimTxids = try (data["claim_txids"]?.arrayValue ?? []).compactMap(\.stringValue).map { try TransactionID(hex: $0) }
            minedClaimTxid = try data["mined_claim_txid"]?.stringValue.map { try TransactionID(hex: $0) }
        } catch {
            throw .corruptRecord("a stored transaction does not decode: \(error)")
        }
        coopRequest = try data["coop_request"].map { (json) throws(ClientEngineError) in
            guard let round = CoopRound(json: json) else { throw .corruptRecord("a coop_request lacks a field or does not decode") }
            return round
        }
        coopFallback = data["coop_fallback"]?.stringValue
        if let outcome = data["outcome"], let reason = outcome["reason"]?.stringValue,
           let funds = outcome["funds"]?.stringValue.flatMap(ClientFundsFate.init(rawValue:)) {
            self.outcome = ClientSwapOutcome(reason: reason, funds: funds)
        }
    }
}
