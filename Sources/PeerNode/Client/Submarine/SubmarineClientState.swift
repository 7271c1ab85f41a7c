import Bitcoin
import HTLC

/// A client submarine swap's state: its phase (`SubmarineClientPhase` says what each one
/// persists and how it resumes) and the facts gathered so far. It holds no key: the refund
/// key derives from the seed and the swap index whenever a refund is signed. The preimage
/// it may hold is not a secret of the client's: it is learned only once the invoice is paid,
/// as the proof of that payment.
public struct SubmarineClientState: Sendable, Hashable {
    /// Where the preimage came from.
    public enum PreimageSource: String, Sendable, Hashable {
        /// The provider's claim on chain (any witness shape, either contract type).
        case claim
        /// The payee's settled invoice (a swap-in pays the node's own invoice).
        case settledInvoice = "settled_invoice"
        /// A status message from the provider.
        case providerStatus = "provider_status"
        /// The provider's request to co-sign its cooperative claim (issue 17), which carries
        /// it: it has paid.
        case cooperativeClaim = "cooperative_claim"
    }

    public var phase: SubmarineClientPhase
    /// The contract rebuilt from the verified accept (from `accepted` on).
    public var contract: SwapContract?
    /// The signed funding transaction, recorded before its first broadcast (from
    /// `lock_intent` on): the only lock this swap ever broadcasts.
    public var funding: Transaction?
    /// The funding's output that pays the contract.
    public var lock: LockOutput?
    public var lockConfirmations: Int
    /// The highest block height seen: a block at or below it is a repeat and changes nothing.
    public var tipHeight: Int?
    /// SHA-256(preimage) = the payment hash, checked before it is stored.
    public var preimage: [UInt8]?
    public var preimageSource: PreimageSource?
    /// The provider's claim, once seen spending the lock (nil again if it leaves the chain
    /// and the mempool).
    public var claimTxid: TransactionID?
    public var claimConfirmations: Int
    /// The latest refund version signed.
    public var refund: Transaction?
    /// Every refund version's txid, oldest first: whichever is mined is ours.
    public var refundTxids: [TransactionID]
    public var refundConfirmations: Int
    /// The refund version found in a block when it is not the latest signed (an earlier
    /// version confirmed before its bump): the one whose output the wallet got back, which
    /// the books count. Nil while none is mined, or when the latest is.
    public var minedRefundTxid: TransactionID?
    /// Set by the final phases.
    public var outcome: SubmarineClientOutcome?
    /// The provider's cooperative claim this client co-signed (`coop_signed`): the session
    /// and the claim's txid, by which its key-path spend of the lock is known as the claim.
    /// Kept in every later event; one per swap.
    public var coopClaim: CoopCosigned?
    /// The latest cooperative refund round (`coop_refund_requested`): public nonce,
    /// sighash, the unsigned key-path refund; its secret nonce lives in memory only. Kept in
    /// every later event.
    public var coopRefund: CoopRound?
    /// How many refund rounds this swap has started (each with a fresh nonce): bounded by
    /// `Settings.maxCoopRefundRounds`.
    public var coopRefundRounds: Int = 0
    /// Why the last refund round ended without a key-path refund (refused, silent, a bad
    /// partial signature, a restart).
    public var coopRefundFallback: String?

    public init(phase: SubmarineClientPhase = .quoted, contract: SwapContract? = nil, funding: Transaction? = nil,
                lock: LockOutput? = nil, lockConfirmations: Int = 0, tipHeight: Int? = nil, preimage: [UInt8]? = nil,
                preimageSource: PreimageSource? = nil, claimTxid: TransactionID? = nil, claimConfirmations: Int = 0,
                refund: Transaction? = nil, refundTxids: [TransactionID] = [], refundConfirmations: Int = 0,
                outcome: SubmarineClientOutcome? = nil) {
        self.phase = phase
        self.contract = contract
        self.funding = funding
        self.lock = lock
        self.lockConfirmations = lockConfirmations
        self.tipHeight = tipHeight
        self.preimage = preimage
        self.preimageSource = preimageSource
        self.claimTxid = claimTxid
        self.claimConfirmations = claimConfirmations
        self.refund = refund
        self.refundTxids = refundTxids
        self.refundConfirmations = refundConfirmations
        self.outcome = outcome
    }

    /// The contract's timeout: the refund is valid in the block after it, so it is
    /// broadcast once the tip reaches it.
    public var timeoutHeight: Int? { contract.map { Int($0.terms.timeoutHeight) } }
}
