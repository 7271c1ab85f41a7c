/// How much a claim may spend on fees, and when it may take them from the amount.
///
/// The lock holds X plus the claim fee quoted for the destination. The claim pays X and
/// leaves the rest as fee. When a bump needs more fee than that:
/// - a swap-out (own address) lowers X by what is missing;
/// - a contact payment keeps X exact, unless at most `lowerAmountWithinBlocks` blocks are
///   left before the provider may refund: then a lower X that confirms beats losing the
///   claim to a refund, and the drop is reported.
/// The fee stays within `feeCapPercent` of the lock, except for a swap-out within
/// `lowerAmountWithinBlocks` of the timeout: X is the user's own money there, and a claim
/// that confirms paying all of it but dust beats losing the lock to the provider's refund
/// (audit M-3). The output always stays at or above the destination's dust limit.
///
/// A lock holding so much more than X that the rest would be a fee above the cap (an
/// over-lock) pays the fee at the rate and the surplus to the destination (audit L-9).
///
/// When to bump (audit M-3): a claim version still unconfirmed `bumpAfterUnconfirmedBlocks`
/// blocks after the node accepted it is replaced at the current estimate (when higher), and
/// within `lowerAmountWithinBlocks` of the timeout at every block (`bumpDue`).
public struct ClaimPolicy: Sendable, Hashable {
    /// The fee may be at most this share of the lock value, in percent (default 20).
    public var feeCapPercent: Int64
    /// Blocks before the timeout from which a contact payment may lower X, and a swap-out's
    /// claim may pay all of X but dust in fees (default 12).
    public var lowerAmountWithinBlocks: Int
    /// Blocks a claim version may stay unconfirmed before it is bumped (default 3).
    public var bumpAfterUnconfirmedBlocks: Int

    public init(feeCapPercent: Int64 = 20, lowerAmountWithinBlocks: Int = 12, bumpAfterUnconfirmedBlocks: Int = 3) {
        self.feeCapPercent = feeCapPercent
        self.lowerAmountWithinBlocks = lowerAmountWithinBlocks
        self.bumpAfterUnconfirmedBlocks = max(1, bumpAfterUnconfirmedBlocks)
    }

    /// Whether an unconfirmed claim should be replaced now: it has been unconfirmed for
    /// `bumpAfterUnconfirmedBlocks` blocks since the node accepted this version (nil: not
    /// known, as in older records: due), or at most `lowerAmountWithinBlocks` are left.
    public func bumpDue(unconfirmedBlocks: Int?, blocksLeft: Int) -> Bool {
        if blocksLeft <= lowerAmountWithinBlocks { return true }
        guard let unconfirmedBlocks else { return true }
        return unconfirmedBlocks >= bumpAfterUnconfirmedBlocks
    }

    public static let `default` = ClaimPolicy()

    /// The largest fee a claim of `lockValue` may pay.
    /// (floor; any value up to 21 million BTC times a percent up to 100 fits in Int64.)
    public func feeCap(lockValue: Int64) -> Int64 {
        lockValue * min(max(feeCapPercent, 0), 100) / 100
    }

    /// Decides output and fee for a claim of `amount` (X) from a lock of `lockValue`, at
    /// `feeRate`, for a claim of `virtualSize` vbytes to `destination`, `blocksLeft` blocks
    /// before the timeout.
    public func plan(lockValue: Int64, amount: Int64, purpose: ClaimPurpose, destination: DestinationType,
                     virtualSize: Int, feeRate: FeeRate, blocksLeft: Int) throws -> ClaimPlan {
        let dust = DustLimit.threshold(for: destination)
        guard amount >= dust else { throw HTLCError.amountBelowDust(amount: amount, dustLimit: dust) }
        guard amount <= lockValue else { throw HTLCError.amountExceedsLock(amount: amount, lockValue: lockValue) }
        // A swap-out near the timeout may spend all of X but dust: the user's own money,
        // better spent on fees than lost to the refund.
        let cap = purpose == .swapOut && blocksLeft <= lowerAmountWithinBlocks
            ? max(feeCap(lockValue: lockValue), lockValue - dust) : feeCap(lockValue: lockValue)
        let required = feeRate.fee(forVirtualSize: virtualSize)
        let available = lockValue - amount

        if available >= required {
            // X exact; whatever the lock holds above X is the fee ...
            if available <= cap { return ClaimPlan(outputValue: amount, fee: available, amountDrop: 0, virtualSize: virtualSize) }
            // ... unless that is above the cap: the provider locked more than agreed (an
            // over-lock, audit L-9). Refusing the claim would leave the client's payment
            // held until the refund; burning the surplus as fee helps no one. The claim pays
            // the fee at the rate and everything else to the destination (X plus the
            // surplus). The client engine has no wallet of its own to send change to.
            guard required <= cap else { throw HTLCError.feeAboveCap(fee: required, cap: cap) }
            let output = lockValue - required
            return ClaimPlan(outputValue: output, fee: required, amountDrop: 0, virtualSize: virtualSize,
                             surplus: output - amount)
        }
        if purpose == .payContact && blocksLeft > lowerAmountWithinBlocks {
            throw HTLCError.feeBumpNeedsLowerAmount(requiredFee: required, availableFee: available,
                                                    blocksLeft: blocksLeft, allowedWithin: lowerAmountWithinBlocks)
        }
        guard required <= cap else { throw HTLCError.feeAboveCap(fee: required, cap: cap) }
        let output = lockValue - required
        guard output >= dust else { throw HTLCError.amountBelowDust(amount: output, dustLimit: dust) }
        return ClaimPlan(outputValue: output, fee: required, amountDrop: amount - output, virtualSize: virtualSize)
    }
}
