/// The money that reached or left each node other than through its own swaps (issue 19's
/// accounting invariant), written down by the run as it moves it: the Lightning balance a
/// node is created with (`hub_ln_addnode`), `hub_fund` payments to its wallet, payments
/// from savings, and what a contact received from someone else's swap. A fresh node owns
/// nothing (its wallet is new, its Lightning balance is what the hub opened it with), so
/// its worth at the end less these amounts is what its own swaps made or cost:
///
///     report net = (on-chain + Lightning now) − (on-chain + Lightning at creation = 0)
///                  − deposits + withdrawals
///
/// Amounts are msat, deposits positive, withdrawals negative.
final class BalanceLedger {
    struct Entry {
        let node: String
        let msat: Int64
        let what: String
    }

    private(set) var entries: [Entry] = []

    func deposit(_ node: String, msat: Int64, _ what: String) {
        entries.append(Entry(node: node, msat: msat, what: what))
    }

    func withdrawal(_ node: String, msat: Int64, _ what: String) {
        entries.append(Entry(node: node, msat: -msat, what: what))
    }

    /// Deposits less withdrawals for `node`.
    func outsideMsat(_ node: String) -> Int64 {
        entries.filter { $0.node == node }.reduce(0) { $0 + $1.msat }
    }

    /// `node`'s entries grouped by what they were (a soak makes hundreds), as one line:
    /// "hub_fund +4,000,000 sat (2), pay from savings -61,000 sat (1)".
    func summary(_ node: String) -> String {
        var order: [String] = []
        var sums: [String: (msat: Int64, count: Int)] = [:]
        for entry in entries where entry.node == node {
            if sums[entry.what] == nil { order.append(entry.what) }
            sums[entry.what, default: (0, 0)].msat += entry.msat
            sums[entry.what, default: (0, 0)].count += 1
        }
        guard !order.isEmpty else { return "none" }
        return order.map { what in
            let sum = sums[what] ?? (0, 0)
            return "\(what) \(sum.msat >= 0 ? "+" : "")\(formatMsat(sum.msat)) (\(sum.count))"
        }.joined(separator: ", ")
    }
}
