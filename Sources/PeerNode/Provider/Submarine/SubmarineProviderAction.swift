/// What the submarine machine asks the engine to do. The engine runs them in order, after
/// storing the transition that produced them, and feeds each result back as a
/// `SubmarineProviderInput`. Every action is safe to repeat, except `pay`, which only the
/// step that records `payment_intent` emits, exactly once.
public enum SubmarineProviderAction: Sendable, Hashable {
    /// Watch the contract's address and the lock's output; report the lock (`.lockSeen`,
    /// `.lockMissing`) and spends of it (`.lockRefunded`, `.claimStatus`).
    case watchLock
    /// Relay the client's signed lock again if the chain has lost it (a reorg after paying:
    /// the provider still needs it confirmed to claim).
    case rebroadcastLock(SubmarineLock)
    /// Check the Lightning side and read the tip and clock (answers `.paymentReady` or
    /// `.paymentNotReady`).
    case preparePayment
    /// Pay the invoice with LND's `cltv_limit` (answers `.paymentStarted`, `.payment`).
    case pay(cltvLimit: UInt32)
    /// Follow the payment already sent (answers `.payment` or `.paymentNotFound`; no-op when
    /// already following it); never sends.
    case trackPayment
    /// Build and sign a claim with the preimage, fee from estimates (`ClaimPolicy`); with
    /// `replacing`, at a higher rate than that version (answers `.claimPrepared` or
    /// `.claimFailed`).
    case prepareClaim(replacing: SubmarineClaim?)
    /// Broadcast the recorded claim (answers `.claimPublished` or `.claimPublishFailed`).
    case broadcastClaim(SubmarineClaim)
    /// Ask the chain where the claim stands (answers `.claimStatus`).
    case checkClaim(SubmarineClaim)
    /// Tell the operator what no action can fix (the log's alarm line).
    case raiseAlarm(String)
    /// Build a cooperative claim round (the key-path claim to the provider's wallet and a
    /// fresh secret nonce in memory); answers `.coopClaimPrepared` or `.coopUnavailable`.
    case prepareCooperativeClaim
    /// Send the recorded round's `CoopClaimRequest` to the client and finish the key-path
    /// claim from its answer; answers `.claimPrepared` (the signed key-path claim) or
    /// `.coopFailed`.
    case requestCooperativeClaim(CoopRound)
    /// Tell the client it may ask for a cooperative refund (`CoopRefundOffer`), once the
    /// payment is tracked to a final failure; no answer.
    case offerCooperativeRefund
}

extension SubmarineProviderAction: CustomStringConvertible {
    /// Names the action; a preimage is never printed.
    public var description: String {
        switch self {
        case .watchLock: return "watch lock"
        case .rebroadcastLock(let lock): return "rebroadcast lock \(lock.txid)"
        case .preparePayment: return "prepare payment"
        case .pay(let limit): return "pay invoice (cltv_limit \(limit))"
        case .trackPayment: return "track payment"
        case .prepareClaim(let previous): return previous.map { "bump claim \($0.txid)" } ?? "prepare claim"
        case .broadcastClaim(let claim): return "broadcast claim \(claim.txid)"
        case .checkClaim(let claim): return "check claim \(claim.txid)"
        case .raiseAlarm(let what): return "alarm: \(what)"
        case .prepareCooperativeClaim: return "prepare a cooperative claim"
        case .requestCooperativeClaim(let round): return "ask the client to co-sign claim \(round.txid)"
        case .offerCooperativeRefund: return "offer the client a cooperative refund"
        }
    }
}
