import Bitcoin
import HTLC

/// How hard the provider pushes its refund as the held HTLC's expiry nears (audit H-4).
///
/// LND gives the client's payment back 12 blocks before the HTLC expires (E − 12); from
/// then on the client can claim the lock for free. So the refund must be confirmed, and
/// `ProviderSwapMachine.refundCancelDepth` deep, by then: the deadline is
/// D = E − 12 − refundCancelDepth. Between the timeout (when the refund becomes valid)
/// and D, the fee the refund may pay rises from `basePercent` of the lock to all of it
/// but the dust limit (paying the lock in fees beats losing it to the client), the
/// confirmation target shrinks to the blocks left, and in the second half of the window
/// each bump doubles the rate rather than adding a step, so an estimate that
/// lags a rising mempool minimum is overtaken in a few blocks.
public struct RefundEscalation: Sendable, Hashable {
    /// LND's `holdexpirydelta`: held HTLCs are cancelled this many blocks before expiry.
    public static let holdExpiryDelta: UInt32 = 12

    public let timeoutHeight: UInt32
    /// D; nil for a lock recorded without the HTLC's expiry (it then keeps the base cap).
    public let deadlineHeight: UInt32?
    public let basePercent: Int64

    public init(timeoutHeight: UInt32, htlcExpiry: UInt32?, basePercent: Int64) {
        self.timeoutHeight = timeoutHeight
        self.basePercent = min(max(basePercent, 0), 100)
        deadlineHeight = htlcExpiry.map(Self.deadline(htlcExpiry:))
    }

    /// D for an HTLC expiring at `htlcExpiry`: E − 12 − `refundCancelDepth` (0 below it).
    public static func deadline(htlcExpiry expiry: UInt32) -> UInt32 {
        let margin = holdExpiryDelta + UInt32(ProviderSwapMachine.refundCancelDepth)
        return expiry > margin ? expiry - margin : 0
    }

    /// Blocks from `tip` to the deadline (0 at or past it); nil without a deadline.
    public func blocksLeft(tip: UInt32) -> Int? {
        deadlineHeight.map { Int($0) - Int(tip) }.map { max(0, $0) }
    }

    /// How far through the window (timeout → deadline) `tip` is, in per-mille: 0 at the
    /// timeout, 1000 at the deadline and after.
    public func progressPerMille(tip: UInt32) -> Int64 {
        guard let deadline = deadlineHeight else { return 0 }
        guard deadline > timeoutHeight else { return 1_000 }
        let window = Int64(deadline - timeoutHeight)
        let elapsed = Int64(tip) - Int64(timeoutHeight)
        return min(1_000, max(0, elapsed * 1_000 / window))
    }

    /// The most the refund may pay in fees at `tip`: from `basePercent` of the lock at the
    /// timeout up to the lock minus `dust` at the deadline.
    public func maxFee(lockValue: Int64, dust: Int64, tip: UInt32) -> Int64 {
        let everything = max(0, lockValue - dust)
        let base = min(everything, lockValue * basePercent / 100)
        return base + (everything - base) * progressPerMille(tip: tip) / 1_000
    }

    /// The confirmation target to estimate the refund's rate for: the configured one, or
    /// the blocks left to the deadline when fewer.
    public func confirmationTarget(_ configured: Int, tip: UInt32) -> Int {
        guard let left = blocksLeft(tip: tip) else { return configured }
        return max(1, min(configured, left))
    }

    /// The rate for the next version of the refund: the estimate, and above the previous
    /// version by at least `step` (BIP125), and doubled in the second half of the window.
    public func rate(estimate: FeeRate, previous: FeeRate?, step: FeeRate, tip: UInt32) throws -> FeeRate {
        guard let previous else { return estimate }
        var next = previous.satPerKvB + step.satPerKvB
        if progressPerMille(tip: tip) >= 500 { next = max(next, previous.satPerKvB * 2) }
        return try FeeRate(satPerKvB: min(FeeRate.maximumSatPerKvB, max(estimate.satPerKvB, next)))
    }
}
