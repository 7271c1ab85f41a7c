import Transport

/// How much a provider lets ride at once, so one peer (or a burst of them) cannot tie up
/// all its coins or flood it with swaps it must refund.
///
/// Limits: concurrent swaps in total and per peer, exposure (sum of locked amounts of
/// active swaps) in total and per peer, and new swaps per peer in any rolling hour.
/// `restore(from:)` rebuilds the state from the store's active swaps after a restart.
public struct RiskLimits: Sendable {
    public struct Settings: Sendable, Hashable {
        public var maxConcurrentSwaps: Int
        public var maxConcurrentSwapsPerPeer: Int
        public var maxExposureSat: Int64
        public var maxExposurePerPeerSat: Int64
        public var maxNewSwapsPerPeerPerHour: Int

        public init(maxConcurrentSwaps: Int = 100, maxConcurrentSwapsPerPeer: Int = 5,
                    maxExposureSat: Int64 = 10_000_000, maxExposurePerPeerSat: Int64 = 2_000_000,
                    maxNewSwapsPerPeerPerHour: Int = 20) {
            self.maxConcurrentSwaps = maxConcurrentSwaps
            self.maxConcurrentSwapsPerPeer = maxConcurrentSwapsPerPeer
            self.maxExposureSat = maxExposureSat
            self.maxExposurePerPeerSat = maxExposurePerPeerSat
            self.maxNewSwapsPerPeerPerHour = maxNewSwapsPerPeerPerHour
        }
    }

    /// A swap that holds the provider's funds (or will): from accept to a final state.
    public struct ActiveSwap: Sendable, Hashable {
        public let swapID: String
        public let peer: Pubky
        public let amountSat: Int64
        public let startedUnix: UInt64

        public init(swapID: String, peer: Pubky, amountSat: Int64, startedUnix: UInt64) {
            self.swapID = swapID
            self.peer = peer
            self.amountSat = amountSat
            self.startedUnix = startedUnix
        }
    }

    public static let hourSeconds: UInt64 = 3_600

    public let settings: Settings
    private let clock: any UnixClock
    private var active: [String: ActiveSwap] = [:]
    /// Start times of each peer's swaps within the last hour (finished ones included: the
    /// hourly limit counts starts, not what is still open).
    private var recentStarts: [Pubky: [UInt64]] = [:]

    public init(settings: Settings = Settings(), clock: any UnixClock) {
        self.settings = settings
        self.clock = clock
    }

    public var activeCount: Int { active.count }
    public var exposureSat: Int64 { active.values.reduce(0) { $0 + $1.amountSat } }
    public func exposureSat(of peer: Pubky) -> Int64 {
        active.values.filter { $0.peer == peer }.reduce(0) { $0 + $1.amountSat }
    }

    /// Throws `riskLimit` naming the limit a new swap of `amountSat` for `peer` would break.
    public mutating func check(peer: Pubky, amountSat: Int64) throws(OffersError) {
        let now = clock.nowUnix
        pruneStarts(of: peer, now: now)
        let peerSwaps = active.values.filter { $0.peer == peer }
        guard active.count < settings.maxConcurrentSwaps else { throw .riskLimit("concurrent swaps") }
        guard peerSwaps.count < settings.maxConcurrentSwapsPerPeer else { throw .riskLimit("concurrent swaps per peer") }
        guard exposureSat + amountSat <= settings.maxExposureSat else { throw .riskLimit("total exposure") }
        guard peerSwaps.reduce(0, { $0 + $1.amountSat }) + amountSat <= settings.maxExposurePerPeerSat else {
            throw .riskLimit("exposure per peer")
        }
        guard (recentStarts[peer]?.count ?? 0) < settings.maxNewSwapsPerPeerPerHour else {
            throw .riskLimit("new swaps per peer per hour")
        }
    }

    /// Checks and records a new swap. Admitting an id already active is a no-op (a
    /// resent SwapRequest gets the same accept, and must not count twice).
    public mutating func admit(swapID: String, peer: Pubky, amountSat: Int64) throws(OffersError) {
        guard active[swapID] == nil else { return }
        try check(peer: peer, amountSat: amountSat)
        let now = clock.nowUnix
        active[swapID] = ActiveSwap(swapID: swapID, peer: peer, amountSat: amountSat, startedUnix: now)
        recentStarts[peer, default: []].append(now)
    }

    /// A swap reached a final state: its funds are free again.
    public mutating func release(swapID: String) {
        active[swapID] = nil
    }

    /// Adds the store's active swaps (after a restart, or a second `recover()` while swaps
    /// run: audit M-4, where replacing the ledger forgot the running swaps' exposure).
    /// Swaps already in the ledger keep their entry. Start times count toward the hourly
    /// limit while within the hour.
    public mutating func restore(from swaps: [ActiveSwap]) {
        for swap in swaps where active[swap.swapID] == nil {
            active[swap.swapID] = swap
            recentStarts[swap.peer, default: []].append(swap.startedUnix)
        }
        let now = clock.nowUnix
        for peer in Array(recentStarts.keys) { pruneStarts(of: peer, now: now) }
    }

    private mutating func pruneStarts(of peer: Pubky, now: UInt64) {
        guard let starts = recentStarts[peer] else { return }
        let kept = starts.filter { now < $0 + Self.hourSeconds }
        recentStarts[peer] = kept.isEmpty ? nil : kept
    }
}
