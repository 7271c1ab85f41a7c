import Transport

/// One swap in `/api/swaps`: where it stands (stage, deadline) and its money, the report's
/// figures (`SwapAccountingEntry`: amounts and fees only). The event log is not shown: a
/// client's events can carry the preimage before its claim confirms.
struct StatusSwapView: Sendable {
    let entry: SwapAccountingEntry
    let peerName: String?
    /// The last event's kind (`lock_broadcast`, `claim_broadcast`, `settled`, ...).
    let stage: String
    let isFinal: Bool
    let updatedAt: Int64?
    /// The HTLC's timeout height, once known, and blocks left until it from the tip.
    let timeoutHeight: Int64?
    let blocksLeft: Int64?

    var json: JSONValue {
        .object([
            "id": .string(entry.id), "role": .string(entry.role.rawValue), "purpose": .string(entry.purpose),
            "peer": .string(entry.peer), "peer_name": peerName.map { .string($0) } ?? .null,
            "stage": .string(stage), "final": .bool(isFinal), "outcome": .string(entry.outcome.rawValue),
            "created_at": .integer(entry.createdAt), "updated_at": updatedAt.map { .integer($0) } ?? .null,
            "amount_sat": .integer(entry.amountSat),
            "timeout_height": timeoutHeight.map { .integer($0) } ?? .null,
            "blocks_left": blocksLeft.map { .integer($0) } ?? .null,
            "accounting": entry.json,
        ])
    }
}
