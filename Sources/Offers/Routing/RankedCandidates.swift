/// One direction's candidates for paying X, best first, and the contacts left out of it
/// with their reasons (probe failures, offers that do not run the direction or do not
/// fit the amount).
public struct RankedCandidates<Candidate: Sendable & Equatable>: Sendable, Equatable {
    public var ranked: [Candidate]
    public var skipped: [SkippedContact]

    public init(ranked: [Candidate] = [], skipped: [SkippedContact] = []) {
        self.ranked = ranked
        self.skipped = skipped
    }

    /// The same with `more` skipped contacts first (a probe's, before the selector's).
    public func skipping(_ more: [SkippedContact]) -> RankedCandidates {
        RankedCandidates(ranked: ranked, skipped: more + skipped)
    }
}
