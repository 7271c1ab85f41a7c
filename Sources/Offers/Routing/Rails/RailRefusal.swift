/// Why no route pays X, naming what is missing. Nothing has moved when it is given.
public enum RailRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// X must be a whole number of sats above 0.
    case invalidAmount(Int64)
    /// The contact gave neither an on-chain address on this network nor a Lightning entry.
    case payeeTakesNoRail(contact: String)
    /// Every kind of route left open (by the contact's rails and `--from`) has a provider
    /// or needs none, but the balance it spends is too small: each with its numbers.
    case balancesTooSmall(contact: String, amountSat: Int64, verdicts: [RailVerdict])
    /// At least one open kind has no provider for X; each open kind with its reason.
    case noRoute(contact: String, amountSat: Int64, payee: PayeeRails, source: RailSource?, verdicts: [RailVerdict])

    public var description: String {
        switch self {
        case .invalidAmount(let amount):
            return "the amount must be at least 1 sat, not \(amount)"
        case .payeeTakesNoRail(let contact):
            return "\(contact) takes neither on-chain nor Lightning payments on this network (its endpoints list neither)"
        case .balancesTooSmall(let contact, let amount, let verdicts):
            return "the balances are too small to pay \(contact) \(OffersError.sats(amount)): "
                + verdicts.filter(\.isOpen).map(\.description).joined(separator: "; ")
        case .noRoute(let contact, let amount, let payee, let source, let verdicts):
            let from = source.map { "; --from \($0.rawValue)" } ?? ""
            return "no route pays \(contact) \(OffersError.sats(amount)) (\(contact) takes \(payee.description)\(from)): "
                + verdicts.filter(\.isOpen).map(\.description).joined(separator: "; ")
        }
    }

    /// Every kind of route considered, with its outcome (empty for the first two cases).
    public var verdicts: [RailVerdict] {
        switch self {
        case .invalidAmount, .payeeTakesNoRail: return []
        case .balancesTooSmall(_, _, let verdicts), .noRoute(_, _, _, _, let verdicts): return verdicts
        }
    }
}
