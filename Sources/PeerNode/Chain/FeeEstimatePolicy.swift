import HTLC

/// The bounds put on a backend's fee estimate. Defaults:
///
/// - floor 1 sat/vB (1,000 sat/kvB): Core's estimate can sit below what older nodes relay
///   (v31 relays from 0.1 sat/vB), and a claim that does not propagate is worse than a
///   slightly dearer one;
/// - cap 100 sat/vB: an estimate above it is lowered to it. A provider must be able to pay
///   its refund at the cap out of every lock (audit H-4), so the cap sets its smallest
///   swap (100 sat/vB: 14,730 sat; 500 would make it 72,330). Near the HTLC's deadline the
///   refund escalates past the cap anyway (`RefundEscalation`), up to the lock but dust;
/// - fallback 10 sat/vB: what regtest and a fresh node answer while Core has no data
///   (`Insufficient data or no feerate found`). Mainnet configurations should set their own.
///
/// Pure, so the rules are tested without a backend.
public struct FeeEstimatePolicy: Sendable, Hashable {
    public var floor: FeeRate
    public var cap: FeeRate
    public var fallback: FeeRate

    /// A cap below the floor is raised to it: the floor is what relays, so it wins.
    public init(floor: FeeRate, cap: FeeRate, fallback: FeeRate) {
        self.floor = floor
        self.cap = max(cap, floor)
        self.fallback = fallback
    }

    public static let `default` = FeeEstimatePolicy(
        floor: try! FeeRate(satPerKvB: 1_000), cap: try! FeeRate(satPerKvB: 100_000),
        fallback: try! FeeRate(satPerKvB: 10_000))

    /// Core's confirmation targets: it refuses 0 and anything above 1008.
    public static let targetRange = 1...1008

    /// The rate to use for a backend answer (nil: no data), kept within floor...cap.
    public func apply(_ estimate: FeeRate?) -> ChainFeeEstimate {
        guard let estimate else { return ChainFeeEstimate(rate: clamped(fallback), source: .fallback) }
        if estimate < floor { return ChainFeeEstimate(rate: floor, source: .raisedToFloor) }
        if estimate > cap { return ChainFeeEstimate(rate: cap, source: .loweredToCap) }
        return ChainFeeEstimate(rate: estimate, source: .backend)
    }

    private func clamped(_ rate: FeeRate) -> FeeRate { min(max(rate, floor), cap) }
}

/// A fee rate to pay and where it came from, so a caller can say why it paid it.
public struct ChainFeeEstimate: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        /// The backend's estimate, within bounds.
        case backend
        /// The backend's estimate was below the floor.
        case raisedToFloor
        /// The backend's estimate was above the cap.
        case loweredToCap
        /// The backend had no estimate.
        case fallback
    }

    public let rate: FeeRate
    public let source: Source

    public init(rate: FeeRate, source: Source) {
        self.rate = rate
        self.source = source
    }
}
