import Bitcoin
import Offers
import Transport

/// Where a provider swap stands: exactly its last stored event (the event's kind is the
/// state's name, its data the payload). Each state says what a restarted node does with
/// it (`ProviderSwapMachine` answers `.recover` in every state).
///
/// Pending states: `invoice_created` ... `refund_broadcast`. Success: `settled`.
/// Failure for the client (its payment returns): `refunded`, `cancelled`.
public enum ProviderSwapState: Sendable, Hashable {
    /// The accept is stored and sent; the hold invoice waits for the client's payment.
    /// Resume: look the invoice up again (and watch it); cancel it once the timeout is
    /// too close to lock safely.
    case invoiceCreated
    /// The client's HTLC is held (expiring at `htlcExpiry`); the lock checks run next.
    /// Resume: look the invoice up and run the checks again with today's tip: fund, or
    /// cancel the invoice. Nothing is locked yet, so both are safe.
    case invoiceAccepted(htlcExpiry: UInt32)
    /// The signed lock is recorded and may or may not have been broadcast.
    /// Resume: ask the chain for the lock's txid; publish the recorded bytes if it is
    /// unknown (same txid: one lock, never two).
    case fundingIntent(ProviderLock)
    /// The lock is broadcast. Resume: watch its output (rescanning from the lock's height)
    /// for the claim; rebroadcast it while unconfirmed; refund once the timeout is reached.
    case lockBroadcast(ProviderLock)
    /// The lock has the required confirmations. Resume: as `lock_broadcast`.
    case lockConfirmed(ProviderLock)
    /// The preimage is known (from a push or the claim's witness) and recorded before
    /// settling. Resume: settle the invoice (settling twice is harmless).
    case claimObserved(ProviderLock, preimage: [UInt8])
    /// The client asked for a cooperative (key-path) claim with the preimage, and its claim
    /// passed `CoopSpendCheck`: the preimage and the co-signature (`coop_signed`) are
    /// recorded together, before settling and before the partial signature may leave (it
    /// leaves only once the invoice is settled). Resume: settle, as `claim_observed`. A
    /// spend of the lock is the client's claim either way (the co-signed key path, or its
    /// script-path fallback): nothing to watch for.
    case coopSigned(ProviderLock, preimage: [UInt8], claim: CoopCosigned)
    /// The invoice is settled: the provider got paid. Final.
    case settled
    /// The timeout has passed unclaimed; the signed refund is recorded before broadcast.
    /// Resume: broadcast it (again); a claim seen meanwhile still settles the invoice.
    case refundIntent(ProviderLock, ProviderRefund)
    /// The refund is out. Resume: check it; rebroadcast when missing, bump while
    /// unconfirmed at each block; once confirmed, cancel the invoice.
    case refundBroadcast(ProviderLock, ProviderRefund)
    /// While our refund was out, the client's claim appeared (unconfirmed) with the
    /// preimage, recorded here. Either may still confirm: the refund is no longer bumped;
    /// the invoice is settled once the claim confirms, cancelled once the refund is deep.
    /// Resume: watch the lock (the rescan reports the claim again) and check the refund.
    case claimPending(ProviderLock, ProviderRefund, preimage: [UInt8])
    /// The refund is `refundCancelDepth` deep and the invoice is cancelled (the client's
    /// payment returned). Final.
    case refunded
    /// The invoice was cancelled (or expired) before anything was locked. Final.
    case cancelled
    /// The lock was spent, in a block, by a transaction that is not our refund and reveals
    /// no preimage: nothing can settle the invoice. Final, with an alarm for the operator.
    case lockLost(ProviderLock, spendingTxid: TransactionID)
    /// The Lightning node cancelled the client's HTLC while the lock was open (recorded in
    /// the lock, `htlcCancelledHeight`), and the refund brought the lock back,
    /// `refundCancelDepth` deep: the client's payment returned early, the provider lost
    /// only fees, and the alarm said so when the cancel was seen. Final.
    case refundedAfterHTLCCancel(ProviderLock)

    /// The event kinds, as stored.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case invoiceCreated = "invoice_created"
        case invoiceAccepted = "invoice_accepted"
        case fundingIntent = "funding_intent"
        case lockBroadcast = "lock_broadcast"
        case lockConfirmed = "lock_confirmed"
        case claimObserved = "claim_observed"
        case coopSigned = "coop_signed"
        case settled = "settled"
        case refundIntent = "refund_intent"
        case refundBroadcast = "refund_broadcast"
        case claimPending = "claim_pending"
        case refunded = "refunded"
        case cancelled = "cancelled"
        case lockLost = "lock_lost"
        case refundedAfterHTLCCancel = "refunded_after_htlc_cancel"

        public var isFinal: Bool {
            self == .settled || self == .refunded || self == .cancelled || self == .lockLost || self == .refundedAfterHTLCCancel
        }

        /// The status a client is told on entering this state; nil where it does not change
        /// (an intent is internal; a claim seen or a refund in flight changes nothing the
        /// client can act on until the swap ends).
        public var status: SwapStatus? {
            switch self {
            case .invoiceCreated: return .invoicePending
            case .invoiceAccepted: return .invoiceAccepted
            case .fundingIntent, .claimObserved, .coopSigned, .refundIntent, .refundBroadcast, .claimPending, .lockLost: return nil
            case .lockBroadcast: return .lockBroadcast
            case .lockConfirmed: return .lockConfirmed
            case .settled: return .settled
            case .refunded, .refundedAfterHTLCCancel: return .refunded
            case .cancelled: return .cancelled
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .invoiceCreated: return .invoiceCreated
        case .invoiceAccepted: return .invoiceAccepted
        case .fundingIntent: return .fundingIntent
        case .lockBroadcast: return .lockBroadcast
        case .lockConfirmed: return .lockConfirmed
        case .claimObserved: return .claimObserved
        case .coopSigned: return .coopSigned
        case .settled: return .settled
        case .refundIntent: return .refundIntent
        case .refundBroadcast: return .refundBroadcast
        case .claimPending: return .claimPending
        case .refunded: return .refunded
        case .cancelled: return .cancelled
        case .lockLost: return .lockLost
        case .refundedAfterHTLCCancel: return .refundedAfterHTLCCancel
        }
    }

    public var isFinal: Bool { kind.isFinal }

    /// The cooperative claim co-signed, in the state that records it.
    public var coopClaim: CoopCosigned? {
        if case .coopSigned(_, _, let claim) = self { return claim }
        return nil
    }

    /// The lock, in every state that has one.
    public var lock: ProviderLock? {
        switch self {
        case .fundingIntent(let lock), .lockBroadcast(let lock), .lockConfirmed(let lock), .claimObserved(let lock, _),
             .coopSigned(let lock, _, _), .refundIntent(let lock, _), .refundBroadcast(let lock, _), .claimPending(let lock, _, _), .lockLost(let lock, _),
             .refundedAfterHTLCCancel(let lock):
            return lock
        case .invoiceCreated, .invoiceAccepted, .settled, .refunded, .cancelled:
            return nil
        }
    }

    /// The same state with `lock` in place of its lock (nil for a state without one).
    func replacing(lock: ProviderLock) -> ProviderSwapState? {
        switch self {
        case .fundingIntent: return .fundingIntent(lock)
        case .lockBroadcast: return .lockBroadcast(lock)
        case .lockConfirmed: return .lockConfirmed(lock)
        case .claimObserved(_, let preimage): return .claimObserved(lock, preimage: preimage)
        case .coopSigned(_, let preimage, let claim): return .coopSigned(lock, preimage: preimage, claim: claim)
        case .refundIntent(_, let refund): return .refundIntent(lock, refund)
        case .refundBroadcast(_, let refund): return .refundBroadcast(lock, refund)
        case .claimPending(_, let refund, let preimage): return .claimPending(lock, refund, preimage: preimage)
        case .lockLost(_, let txid): return .lockLost(lock, spendingTxid: txid)
        case .refundedAfterHTLCCancel: return .refundedAfterHTLCCancel(lock)
        case .invoiceCreated, .invoiceAccepted, .settled, .refunded, .cancelled: return nil
        }
    }

    /// The event data: the whole payload, so the last event alone rebuilds the state.
    public var eventData: JSONValue {
        switch self {
        case .invoiceCreated, .settled, .refunded, .cancelled:
            return .object([:])
        case .invoiceAccepted(let expiry):
            return .object(["htlc_expiry": .integer(expiry)])
        case .fundingIntent(let lock), .lockBroadcast(let lock), .lockConfirmed(let lock), .refundedAfterHTLCCancel(let lock):
            return .object(["lock": lock.json])
        case .claimObserved(let lock, let preimage):
            // The preimage is stored (the node must settle with it after a restart) but
            // never logged; it is public on chain once the claim confirms anyway.
            return .object(["lock": lock.json, "preimage": .string(preimage.hex)])
        case .coopSigned(let lock, let preimage, let claim):
            // Stored for the same reason; the client gave it to be settled with.
            return .object(["lock": lock.json, "preimage": .string(preimage.hex), "coop": claim.json(direction: .lightningToOnchain)])
        case .refundIntent(let lock, let refund), .refundBroadcast(let lock, let refund):
            return .object(["lock": lock.json, "refund": refund.json])
        case .claimPending(let lock, let refund, let preimage):
            // Stored for the same reason as claim_observed's; the claim is public already.
            return .object(["lock": lock.json, "refund": refund.json, "preimage": .string(preimage.hex)])
        case .lockLost(let lock, let txid):
            return .object(["lock": lock.json, "spending_txid": .string(txid.hex)])
        }
    }

    /// Rebuilds the state from a stored event.
    public init(kind name: String, data: JSONValue) throws(ProviderError) {
        guard let kind = Kind(rawValue: name) else { throw .corruptRecord("unknown provider event \(name)") }
        func lock() throws(ProviderError) -> ProviderLock {
            guard let value = data["lock"] else { throw .corruptRecord("\(name) without its lock") }
            return try ProviderLock(json: value)
        }
        func preimage() throws(ProviderError) -> [UInt8] {
            guard let hex = data["preimage"]?.stringValue, let preimage = [UInt8](hex: hex), preimage.count == 32 else {
                throw .corruptRecord("\(name) without its preimage")
            }
            return preimage
        }
        func refund() throws(ProviderError) -> ProviderRefund {
            guard let value = data["refund"] else { throw .corruptRecord("\(name) without its refund") }
            return try ProviderRefund(json: value)
        }
        switch kind {
        case .invoiceCreated: self = .invoiceCreated
        case .invoiceAccepted:
            guard let expiry = data["htlc_expiry"]?.uint64Value, expiry <= UInt64(UInt32.max) else {
                throw .corruptRecord("invoice_accepted without its HTLC expiry")
            }
            self = .invoiceAccepted(htlcExpiry: UInt32(expiry))
        case .fundingIntent: self = .fundingIntent(try lock())
        case .lockBroadcast: self = .lockBroadcast(try lock())
        case .lockConfirmed: self = .lockConfirmed(try lock())
        case .claimObserved:
            self = .claimObserved(try lock(), preimage: try preimage())
        case .coopSigned:
            guard let coop = data["coop"] else { throw .corruptRecord("coop_signed without its co-signature") }
            guard let claim = CoopCosigned(json: coop, direction: .lightningToOnchain) else {
                throw .corruptRecord("coop_signed's co-signature lacks a field or does not decode")
            }
            self = .coopSigned(try lock(), preimage: try preimage(), claim: claim)
        case .claimPending:
            self = .claimPending(try lock(), try refund(), preimage: try preimage())
        case .lockLost:
            guard let hex = data["spending_txid"]?.stringValue, let txid = try? TransactionID(hex: hex) else {
                throw .corruptRecord("lock_lost without the spending txid")
            }
            self = .lockLost(try lock(), spendingTxid: txid)
        case .settled: self = .settled
        case .refundIntent: self = .refundIntent(try lock(), try refund())
        case .refundBroadcast: self = .refundBroadcast(try lock(), try refund())
        case .refunded: self = .refunded
        case .cancelled: self = .cancelled
        case .refundedAfterHTLCCancel: self = .refundedAfterHTLCCancel(try lock())
        }
    }

    public init(event: SwapEvent) throws(ProviderError) {
        try self.init(kind: event.kind, data: event.data)
    }
}

extension ProviderSwapState: CustomStringConvertible {
    /// The state's name and its lock's txid; never the preimage.
    public var description: String {
        if let lock { return "\(kind.rawValue) (lock \(lock.txid))" }
        return kind.rawValue
    }
}
