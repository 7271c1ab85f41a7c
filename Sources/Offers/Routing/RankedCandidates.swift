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

extension RankedCandidates where Candidate: PricedCandidate {
    /// The list after `Router.confirm` of `candidate`: replaced by its confirmed pricing
    /// (kept in cost order), or moved to the skipped with the reason.
    public func confirming(_ candidate: Candidate, _ outcome: Result<Candidate, SkipReason>) -> RankedCandidates {
        var others = ranked.filter { $0.provider.contact != candidate.provider.contact }
        switch outcome {
        case .success(let confirmed):
            let index = others.firstIndex { $0.totalCostSat > confirmed.totalCostSat } ?? others.count
            others.insert(confirmed, at: index)
            return RankedCandidates(ranked: others, skipped: skipped)
        case .failure(let reason):
            return RankedCandidates(ranked: others, skipped: skipped + [SkippedContact(contact: candidate.provider.contact, reason: reason)])
        }
    }
}
