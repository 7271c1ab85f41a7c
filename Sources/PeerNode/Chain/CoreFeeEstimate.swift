import HTLC

/// `estimatesmartfee`'s answer: the rate (nil when Core has no data) and the target Core
/// actually answered for (it raises 1 to 2 and lowers targets it cannot serve).
public struct CoreFeeEstimate: Hashable, Sendable {
    public let feeRate: FeeRate?
    public let blocks: Int

    public init(feeRate: FeeRate?, blocks: Int) {
        self.feeRate = feeRate
        self.blocks = blocks
    }

    /// `estimate_mode`; `conservative` answers higher and reacts slower.
    public enum Mode: String, Sendable {
        case unset, economical, conservative
    }
}
