/// The route chosen for paying a contact X: which balance, which rail, through whom,
/// what it costs, and one line saying why. The payee receives exactly X on every route.
public struct RailPlan: Sendable, Equatable {
    public let contact: String
    /// X: what the payee receives.
    public let amountSat: Int64
    public let route: RailRoute
    /// One line for the user: the contact's rails, the balances, and the route taken.
    public let reason: String
    /// The other routes that fit, best first.
    public let alternatives: [RailRoute]
    /// Every kind of route considered, with its outcome, in `RailOption` order.
    public let verdicts: [RailVerdict]

    public init(contact: String, amountSat: Int64, route: RailRoute, reason: String, alternatives: [RailRoute],
                verdicts: [RailVerdict]) {
        self.contact = contact
        self.amountSat = amountSat
        self.route = route
        self.reason = reason
        self.alternatives = alternatives
        self.verdicts = verdicts
    }

    public var option: RailOption { route.kind }
    public var source: RailSource { option.source }
    /// The rail the payee receives on.
    public var rail: PaymentRail { option.rail }
    /// Everything paid beyond X.
    public var costSat: Int64 { route.costSat }
    /// What leaves the source balance: X plus every fee (at most, for Lightning routing).
    public var spendSat: Int64 { amountSat + costSat }

    /// One line per kind of route, for `--debug` and logs.
    public var debugLines: [String] {
        verdicts.map { ($0.option == option ? "chosen: " : "") + $0.description }
    }
}
