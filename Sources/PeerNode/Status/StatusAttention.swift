import Transport

/// Something the operator should look at now: a swap close to its deadline, a backend
/// that does not answer, or liquidity below what the offer needs to serve its smallest
/// swap. `kind` is one of `swap_deadline`, `backend_down`, `low_liquidity`.
struct StatusAttention: Sendable {
    let kind: String
    let detail: String
    /// The swap concerned (`swap_deadline`).
    let swapID: String?
    /// Blocks until the swap's HTLC times out (`swap_deadline`).
    let blocksLeft: Int64?

    init(kind: String, detail: String, swapID: String? = nil, blocksLeft: Int64? = nil) {
        self.kind = kind
        self.detail = detail
        self.swapID = swapID
        self.blocksLeft = blocksLeft
    }

    var json: JSONValue {
        .object(["kind": .string(kind), "detail": .string(detail), "swap_id": swapID.map { .string($0) } ?? .null,
                 "blocks_left": blocksLeft.map { .integer($0) } ?? .null])
    }
}
