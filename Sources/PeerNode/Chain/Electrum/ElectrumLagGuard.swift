/// Whether the Electrum server's tip lags the chain as another source sees it (LND's best
/// block). A server indexes a block a moment after its Bitcoin node has it, so a gap of a
/// block or two for a second is normal; `maxBlocks` or more for `graceMilliseconds` means
/// the server stopped following (its link to its node is down, or it is stuck), and a
/// node that trusted its tip would count deadlines from a height the chain has left: a
/// client could reveal its preimage after its claim cutoff, when the provider may already
/// refund. While the verdict is `lagging` the backend refuses to give a tip (so nothing
/// time-bound acts on it) and says why. Pure: the backend feeds it heights and the time.
public struct ElectrumLagGuard: Sendable, Equatable {
    /// A gap of this many blocks or more is a lag once it lasts `graceMilliseconds`.
    public static let defaultMaxBlocks = 3
    /// Long enough for a server to index a burst of blocks (ElectrumX polls its node every
    /// few seconds by default), short against a block interval.
    public static let defaultGraceMilliseconds: UInt64 = 10_000

    enum Verdict: Equatable, Sendable {
        /// At or ahead of the reference, or within `maxBlocks` of it.
        case following
        /// Behind by `maxBlocks` or more, for less than the grace so far.
        case catchingUp(blocks: Int)
        /// Behind by `blocks` for `milliseconds` (at least the grace).
        case lagging(blocks: Int, milliseconds: UInt64)
    }

    let maxBlocks: Int
    let graceMilliseconds: UInt64
    /// When the gap first reached `maxBlocks` (cleared when it closes).
    private(set) var behindSince: UInt64?

    init(maxBlocks: Int = defaultMaxBlocks, graceMilliseconds: UInt64 = defaultGraceMilliseconds) {
        self.maxBlocks = max(1, maxBlocks)
        self.graceMilliseconds = graceMilliseconds
    }

    /// The verdict for the server at `serverHeight` when the reference is at
    /// `referenceHeight` (nil: no reference now, so nothing to compare and no verdict
    /// against the server) at `now` (milliseconds on a monotonic clock).
    mutating func observe(serverHeight: Int, referenceHeight: Int?, now: UInt64) -> Verdict {
        guard let referenceHeight, referenceHeight - serverHeight >= maxBlocks else {
            behindSince = nil
            return .following
        }
        let gap = referenceHeight - serverHeight
        let since = behindSince ?? now
        behindSince = since
        let elapsed = now >= since ? now - since : 0
        return elapsed >= graceMilliseconds ? .lagging(blocks: gap, milliseconds: elapsed) : .catchingUp(blocks: gap)
    }
}
