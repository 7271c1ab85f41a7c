import Transport

/// `/api/earnings`: per UTC day with a swap ended, and in total, what the node earned as a
/// provider (service fees), paid as a client, and its net (every role, msat), from the
/// report's books (`SwapAccounting`): final swaps only, in-flight ones never counted.
struct StatusEarningsView: Sendable {
    struct Row: Sendable {
        let swaps: Int
        let completed: Int
        let earnedSat: Int64
        let paidSat: Int64
        let onchainFeesSat: Int64
        let netMsat: Int64

        init(_ totals: [SwapRole: AccountingTotals]) {
            let provider = totals[.provider] ?? AccountingTotals()
            let client = totals[.client] ?? AccountingTotals()
            swaps = provider.swaps + client.swaps
            completed = provider.completed + client.completed
            earnedSat = provider.serviceFeeSat
            paidSat = client.serviceFeeSat
            onchainFeesSat = provider.onchainFeesSat + client.onchainFeesSat
            netMsat = provider.netMsat + client.netMsat
        }

        var members: [String: JSONValue] {
            ["swaps": .integer(swaps), "completed": .integer(completed), "earned_sat": .integer(earnedSat),
             "paid_sat": .integer(paidSat), "onchain_fees_sat": .integer(onchainFeesSat), "net_msat": .integer(netMsat)]
        }
    }

    let days: [(day: String, row: Row)]
    let total: Row

    init(_ books: SwapAccounting) {
        days = books.days.map { ($0.day.description, Row($0.totals)) }
        total = Row(books.overall)
    }

    var json: JSONValue {
        .object([
            "days": .array(days.map { day in
                var members = day.row.members
                members["day"] = .string(day.day)
                return .object(members)
            }),
            "total": .object(total.members),
        ])
    }
}
