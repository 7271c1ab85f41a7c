import Transport

/// How much a provider lets ride at once, so one peer (or a burst of them) cannot tie up
/// all its coins or flood it with swaps it must refund.
///
/// Limits: concurrent swaps in total and per peer, exposure (sum of locked amounts of
/// paid swaps) in total and per peer, and new swaps per peer in any rolling hour.
/// `restore(from:)` rebuilds the state from the store's active swaps after a restart.
///
/// A swap enters the ledger unpaid at its SwapRequest and counts only against a small
/// per-peer share (and a global count) of unpaid accepts; its amount becomes exposure
/// when the client's payment is held (`markPaid`). Otherwise a few fresh keys asking for
/// swaps they never pay would fill the global exposure for the invoices' lifetime (audit
/// M-5). A peer whose swap ended in a refund is refused new swaps for a cool-down.
public struct RiskLimits: Sendable {
    public struct Settings: Sendable, Hashable {
        public var maxConcurrentSwaps: Int
        public var maxConcurrentSwapsPerPeer: Int
        public var maxExposureSat: Int64
        public var maxExposurePerPeerSat: Int64
        public var maxNewSwapsPerPeerPerHour: Int
        /// Accepted but unpaid swaps one peer may hold at once (an honest client pays within
        /// milliseconds of the accept; five lets it start as many swaps at once as
        /// `maxConcurrentSwapsPerPeer`).
        public var maxUnpaidPerPeer: Int
        /// Accepted but unpaid swaps all peers together may hold at once: each costs an
        /// invoice and a row until it expires, never exposure.
        public var maxUnpaidSwaps: Int
        /// How long a peer whose swap ended in a refund is refused new swaps.
        public var refundCoolDownSeconds: UInt64

        public init(maxConcurrentSwaps: Int = 100, maxConcurrentSwapsPerPeer: Int = 5,
                    maxExposureSat: Int64 = 10_000_000, maxExposurePerPeerSat: Int64 = 2_000_000,
                    maxNewSwapsPerPeerPerHour: Int = 20, maxUnpaidPerPeer: Int = 5, maxUnpaidSwaps: Int = 1_000,
                    refundCoolDownSeconds: UInt64 = 3_600) {
            self.maxConcurrentSwaps = maxConcurrentSwaps
            self.maxConcurrentSwapsPerPeer = maxConcurrentSwapsPerPeer
            self.maxExposureSat = maxExposureSat
            self.maxExposurePerPeerSat = maxExposurePerPeerSat
            self.maxNewSwapsPerPeerPerHour = maxNewSwapsPerPeerPerHour
            self.maxUnpaidPerPeer = maxUnpaidPerPeer
            self.maxUnpaidSwaps = maxUnpaidSwaps
            self.refundCoolDownSeconds = refundCoolDownSeconds
        }
    }

    /// A swap that holds the provider's funds (or will): from accept to a final state.
    public struct ActiveSwap: Sendable, Hashable {
        public let swapID: String
        public let peer: Pubky
        public let amountSat: Int64
        public let startedUnix: UInt64
        /// The client's payment is held: the amount is exposure.
        public var paid: Bool

        public init(swapID: String, peer: Pubky, amountSat: Int64, startedUnix: UInt64, paid: Bool = true) {
            self.swapID = swapID
            self.peer = peer
            self.amountSat = amountSat
            self.startedUnix = startedUnix
            self.paid = paid
        }
    }

    public static let hourSeconds: UInt64 = 3_600

    public let settings: Settings
    private let clock: any UnixClock
    private var active: [String: ActiveSwap] = [:]
    /// Start times of each peer's swaps within the last hour (finished ones included: the
    /// hourly limit counts starts, not what is still open).
    private var recentStarts: [Pubky: [UInt64]] = [:]
    /// Peers refused new swaps until the time given (after a refund).
    private var coolingDown: [Pubky: UInt64] = [:]

    public init(settings: Settings = Settings(), clock: any UnixClock) {
        self.settings = settings
        self.clock = clock
    }

    public var activeCount: Int { active.count }
    /// Paid swaps' amounts: what the provider has at stake.
    public var exposureSat: Int64 { active.values.filter(\.paid).reduce(0) { $0 + $1.amountSat } }
    public func exposureSat(of peer: Pubky) -> Int64 {
        active.values.filter { $0.paid && $0.peer == peer }.reduce(0) { $0 + $1.amountSat }
    }
    /// Every swap in the ledger (unpaid ones too), for the operator's view of the limits.
    public var activeSwaps: [ActiveSwap] { Array(active.values) }
    public var unpaidCount: Int { active.values.filter { !$0.paid }.count }

    /// Throws `riskLimit` naming the limit a new swap of `amountSat` for `peer` would break
    /// (as an unpaid accept: its exposure is checked again when it is paid).
    public mutating func check(peer: Pubky, amountSat: Int64) throws(OffersError) {
        let now = clock.nowUnix
        pruneStarts(of: peer, now: now)
        if let until = coolingDown[peer] {
            guard now >= until else { throw .riskLimit("cool-down after a refund (\(until - now) s left)") }
            coolingDown[peer] = nil
        }
        let peerSwaps = active.values.filter { $0.peer == peer }
        guard active.count < settings.maxConcurrentSwaps else { throw .riskLimit("concurrent swaps") }
        guard peerSwaps.count < settings.maxConcurrentSwapsPerPeer else { throw .riskLimit("concurrent swaps per peer") }
        guard peerSwaps.filter({ !$0.paid }).count < settings.maxUnpaidPerPeer else { throw .riskLimit("unpaid swaps per peer") }
        guard unpaidCount < settings.maxUnpaidSwaps else { throw .riskLimit("unpaid swaps") }
        try checkExposure(peer: peer, amountSat: amountSat)
        guard (recentStarts[peer]?.count ?? 0) < settings.maxNewSwapsPerPeerPerHour else {
            throw .riskLimit("new swaps per peer per hour")
        }
    }

    private func checkExposure(peer: Pubky, amountSat: Int64) throws(OffersError) {
        guard exposureSat + amountSat <= settings.maxExposureSat else { throw .riskLimit("total exposure") }
        guard exposureSat(of: peer) + amountSat <= settings.maxExposurePerPeerSat else {
            throw .riskLimit("exposure per peer")
        }
    }

    /// Checks and records a new, unpaid swap. Admitting an id already active is a no-op (a
    /// resent SwapRequest gets the same accept, and must not count twice).
    public mutating func admit(swapID: String, peer: Pubky, amountSat: Int64) throws(OffersError) {
        guard active[swapID] == nil else { return }
        try check(peer: peer, amountSat: amountSat)
        let now = clock.nowUnix
        active[swapID] = ActiveSwap(swapID: swapID, peer: peer, amountSat: amountSat, startedUnix: now, paid: false)
        recentStarts[peer, default: []].append(now)
    }

    /// The client's payment is held: the swap's amount becomes exposure, if it fits now.
    /// Throws `riskLimit` when it does not (the provider then gives the payment back).
    public mutating func markPaid(swapID: String) throws(OffersError) {
        guard var swap = active[swapID], !swap.paid else { return }
        try checkExposure(peer: swap.peer, amountSat: swap.amountSat)
        swap.paid = true
        active[swapID] = swap
    }

    /// `peer`'s swap ended in a refund: refuse its new swaps for the cool-down.
    public mutating func coolDown(peer: Pubky) {
        guard settings.refundCoolDownSeconds > 0 else { return }
        coolingDown[peer] = clock.nowUnix + settings.refundCoolDownSeconds
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
