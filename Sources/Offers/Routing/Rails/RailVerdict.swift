/// What became of one kind of route for this payment: it fits (its best route), or why
/// not, with the numbers.
public struct RailVerdict: Sendable, Equatable, CustomStringConvertible {
    public enum Outcome: Sendable, Equatable {
        /// The best route of this kind that fits every limit.
        case fits(RailRoute)
        /// `--from` chose the other balance.
        case notFrom(RailSource)
        /// `--contract-type` asks for a swap: a direct route is not taken.
        case swapAsked
        /// The contact does not take the rail this kind of route delivers on.
        case payeeDoesNotTake(PaymentRail)
        /// The balance does not cover the cheapest route of this kind: `neededSat` is X
        /// plus every fee of that route.
        case balanceTooSmall(source: RailSource, balanceSat: Int64, neededSat: Int64)
        /// A swap kind with no provider that can take X under this node's limits; every
        /// contact with its reason.
        case noProvider(skipped: [SkippedContact])
    }

    public let option: RailOption
    public let outcome: Outcome

    public init(option: RailOption, outcome: Outcome) {
        self.option = option
        self.outcome = outcome
    }

    /// Neither `--from` nor the contact's rails rule this kind out: what is missing is a
    /// balance or a provider.
    public var isOpen: Bool {
        switch outcome {
        case .notFrom, .payeeDoesNotTake, .swapAsked: return false
        case .fits, .balanceTooSmall, .noProvider: return true
        }
    }

    public var route: RailRoute? {
        if case .fits(let route) = outcome { return route }
        return nil
    }

    public var description: String { "\(option.name): \(why)" }

    /// The outcome alone, for reason lines and refusals.
    public var why: String {
        switch outcome {
        case .fits(let route):
            return "fits, \(OffersError.sats(route.costSat)) in fees" + (route.provider.map { " through \($0.contact.name)" } ?? "")
        case .notFrom(let source): return "not from \(option.source.balanceName) (--from \(source.rawValue))"
        case .payeeDoesNotTake(let rail): return "the contact takes no \(rail.name) payment"
        case .swapAsked: return "not taken: --contract-type asks for a swap"
        case .balanceTooSmall(let source, let balance, let needed):
            return "\(source.holds) \(OffersError.sats(balance)), \(OffersError.sats(needed)) needed"
        case .noProvider(let skipped):
            guard !skipped.isEmpty else { return "no contact runs a provider for it" }
            return "no provider can (" + skipped.map { "\($0.contact.name): \($0.reason)" }.joined(separator: "; ") + ")"
        }
    }
}
