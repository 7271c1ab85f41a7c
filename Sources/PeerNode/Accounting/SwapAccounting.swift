import Transport

/// The node's books: every final swap with its money, totals per UTC day (of the swap's
/// final event) and overall, per role; swaps still in flight listed apart and never
/// counted. A pure value computed from stored records, so the report, a test and any
/// future status API read the same figures.
public struct SwapAccounting: Sendable, Hashable {
    /// Final swaps ended on or after `since`, oldest end first.
    public let entries: [SwapAccountingEntry]
    /// Swaps not final yet, oldest first.
    public let inFlight: [SwapAccountingEntry]
    public let since: AccountingDay?

    public init(entries all: [SwapAccountingEntry], since: AccountingDay? = nil) {
        self.since = since
        entries = all.filter { entry in
            guard let ended = entry.endedAt else { return false }
            return since.map { ended >= $0.startUnix } ?? true
        }.sorted { ($0.endedAt ?? 0, $0.id) < ($1.endedAt ?? 0, $1.id) }
        inFlight = all.filter { $0.outcome == .inFlight }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Reads each swap's contract, log and recorded routing fee.
    public init(swaps: [SwapHistory], since: AccountingDay? = nil) throws(AccountingError) {
        var all: [SwapAccountingEntry] = []
        for swap in swaps {
            switch swap.record.role {
            case .client where SubmarineClientRecord.isSubmarine(swap.record.contract):
                all.append(try .submarineClient(swap.record, events: swap.events))
            case .client: all.append(try .client(swap.record, events: swap.events, routingFeeMsat: swap.routingFeeMsat))
            case .provider:
                all.append(try .provider(swap.record, events: swap.events, lockChildFeeSat: swap.lockChildFeeSat,
                                         lockWithdrawalFeeSat: swap.lockWithdrawalFeeSat))
            }
        }
        self.init(entries: all, since: since)
    }

    /// Totals over every counted swap, per role.
    public var overall: [SwapRole: AccountingTotals] { Self.totals(entries) }

    /// Totals per UTC day with at least one swap ended, oldest first.
    public var days: [(day: AccountingDay, totals: [SwapRole: AccountingTotals])] {
        let byDay = Dictionary(grouping: entries) { AccountingDay(unix: $0.endedAt ?? 0) }
        return byDay.keys.sorted().map { ($0, Self.totals(byDay[$0] ?? [])) }
    }

    /// Net over both roles, msat.
    public var netMsat: Int64 { entries.reduce(0) { $0 + $1.netMsat } }

    private static func totals(_ entries: [SwapAccountingEntry]) -> [SwapRole: AccountingTotals] {
        var out: [SwapRole: AccountingTotals] = [:]
        for entry in entries { out[entry.role, default: AccountingTotals()].add(entry) }
        return out
    }

    private static func rolesJSON(_ totals: [SwapRole: AccountingTotals]) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for role in SwapRole.allCases { members[role.rawValue] = (totals[role] ?? AccountingTotals()).json }
        return .object(members)
    }

    public var json: JSONValue {
        .object([
            "since": since.map { .string($0.description) } ?? .null,
            "overall": Self.rolesJSON(overall),
            "net_msat": .integer(netMsat),
            "days": .array(days.map { day in
                .object(["day": .string(day.day.description), "roles": Self.rolesJSON(day.totals)])
            }),
            "swaps": .array(entries.map(\.json)),
            "in_flight": .array(inFlight.map(\.json)),
        ])
    }
}
