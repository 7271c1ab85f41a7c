import Transport

/// Something the operator should look at now: a swap close to its deadline, a backend
/// that does not answer, or liquidity below what the offer needs to serve its smallest
/// swap. `kind` is one of `swap_deadline`, `backend_down`, `backend_lagging` (an Electrum
/// server behind LND's best block), `low_liquidity`.
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

    /// A live swap this close to its HTLC timeout needs a look: about two hours at mainnet
    /// pace, time for an operator to act before the refund path opens (and, for a client,
    /// before its claim cutoff).
    static let deadlineBlocks: Int64 = 12

    /// The attention item for a live swap whose timeout is `deadlineBlocks` or fewer blocks
    /// from `tip` (or already passed); nil for one further away or with no timeout yet.
    static func deadline(swapID: String, role: String, stage: String, timeoutHeight: Int64?, tip: Int64) -> StatusAttention? {
        guard let timeoutHeight else { return nil }
        let left = timeoutHeight - tip
        guard left <= deadlineBlocks else { return nil }
        let when = left > 0 ? "\(left) blocks from its timeout at height \(timeoutHeight)"
            : "past its timeout at height \(timeoutHeight) by \(-left) blocks"
        return StatusAttention(kind: "swap_deadline", detail: "swap \(swapID) (\(role), \(stage)) is \(when)",
                               swapID: swapID, blocksLeft: left)
    }

    var json: JSONValue {
        .object(["kind": .string(kind), "detail": .string(detail), "swap_id": swapID.map { .string($0) } ?? .null,
                 "blocks_left": blocksLeft.map { .integer($0) } ?? .null])
    }
}
