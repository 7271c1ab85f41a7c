/// The router's answer for paying X: the choice (nil when nothing fits), every fitting
/// candidate in order, and every contact left out with its reason.
public struct RouteDecision: Sendable, Equatable {
    public let choice: RouteCandidate?
    public let ranked: [RouteCandidate]
    public let skipped: [SkippedContact]
    /// Contacts asked over the network for this decision (0 when the cache answered).
    public let probed: Int
    /// Contacts ranked from their published descriptors, asked nothing.
    public let fromDescriptors: Int
    /// Contacts whose cached offer answered (`ProbeReport.fromCache`).
    public let fromCache: Int
    /// Contacts not asked because of their last answer (`ProbeReport.heldBack`).
    public let heldBack: Int

    public init(ranked: [RouteCandidate], skipped: [SkippedContact], probed: Int, fromDescriptors: Int = 0,
                fromCache: Int = 0, heldBack: Int = 0) {
        choice = ranked.first
        self.ranked = ranked
        self.skipped = skipped
        self.probed = probed
        self.fromDescriptors = fromDescriptors
        self.fromCache = fromCache
        self.heldBack = heldBack
    }

    /// One line per contact, for `peernode offers --debug` and logs.
    public var debugLines: [String] {
        ranked.enumerated().map { index, candidate in
            "\(index == 0 ? "chosen" : "candidate"): \(candidate.provider.contact), cost \(candidate.totalCostSat) sat"
        } + skipped.map { "skipped: \($0)" }
    }
}
