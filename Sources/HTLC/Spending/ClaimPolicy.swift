/// How much a claim may spend on fees, and when it may take them from the amount.
///
/// The lock holds X plus the claim fee quoted for the destination. The claim pays X and
/// leaves the rest as fee. When a bump needs more fee than that:
/// - a swap-out (own address) lowers X by what is missing;
/// - a contact payment keeps X exact, unless at most `lowerAmountWithinBlocks` blocks are
///   left before the provider may refund: then a lower X that confirms beats losing the
///   claim to a refund, and the drop is reported.
/// In every case the fee stays within `feeCapPercent` of the lock, and the output stays at or
/// above the destination's dust limit.
public struct ClaimPolicy: Sendable, Hashable {
    /// The fee may be at most this share of the lock value, in percent (default 20).
    public var feeCapPercent: Int64
    /// Blocks before the timeout from which a contact payment may lower X (default 12).
    public var lowerAmountWithinBlocks: Int

    public init(feeCapPercent: Int64 = 20, lowerAmountWithinBlocks: Int = 12) {
        self.feeCapPercent = feeCapPercent
        self.lowerAmountWithinBlocks = lowerAmountWithinBlocks
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
        let cap = feeCap(lockValue: lockValue)
        let required = feeRate.fee(forVirtualSize: virtualSize)
        let available = lockValue - amount

        if available >= required {
            // X exact; whatever the lock holds above X is the fee.
            guard available <= cap else { throw HTLCError.feeAboveCap(fee: available, cap: cap) }
            return ClaimPlan(outputValue: amount, fee: available, amountDrop: 0, virtualSize: virtualSize)
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
