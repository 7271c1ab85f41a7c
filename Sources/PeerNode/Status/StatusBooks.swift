import Transport

/// Every stored swap read once for one status answer: its accounting entry (the report's
/// figures), its last event and its HTLC timeout height. The store is the source, so what
/// the API and `/metrics` count survives a restart and never runs backwards.
struct StatusBooks: Sendable {
    struct Swap: Sendable {
        let record: SwapRecord
        let entry: SwapAccountingEntry
        let last: SwapEvent?
        let timeoutHeight: Int64?
    }

    let swaps: [Swap]

    /// Every swap, or (`unfinishedOnly`) only those not final yet: what `/api/health` and
    /// `/api/status` need, without reading a long history at each poll.
    static func load(from store: SQLiteSwapStore, unfinishedOnly: Bool = false) async throws -> StatusBooks {
        var swaps: [Swap] = []
        let records = unfinishedOnly ? try await store.unfinishedSwaps(role: nil) : try await store.allSwaps(limit: Int(Int32.max))
        for record in records {
            let events = try await store.events(of: record.id)
            let entry: SwapAccountingEntry
            switch record.role {
            case .client where SubmarineClientRecord.isSubmarine(record.contract):
                entry = try .submarineClient(record, events: events)
            case .client:
                let fee = try await ClientEngine.recordedRoutingFee(record.id, in: store)
                entry = try .client(record, events: events, routingFeeMsat: fee)
            case .provider:
                entry = try .provider(record, events: events)
            }
            swaps.append(Swap(record: record, entry: entry, last: events.last, timeoutHeight: timeoutHeight(record, events)))
        }
        return StatusBooks(swaps: swaps)
    }

    /// The report's books over these swaps.
    var accounting: SwapAccounting { SwapAccounting(entries: swaps.map(\.entry)) }

    var inFlight: [Swap] { swaps.filter { $0.entry.outcome == .inFlight } }

    /// The provider's accept carries the timeout; a client learns it when the accept is
    /// verified and keeps it in its state's events.
    private static func timeoutHeight(_ record: SwapRecord, _ events: [SwapEvent]) -> Int64? {
        if let height = record.contract["accept"]?["timeout_height"]?.int64Value { return height }
        for event in events.reversed() {
            if let height = event.data["timeout_height"]?.int64Value { return height }
        }
        return nil
    }
}
