import Foundation

/// One swap's stages as the client daemon timed them: each `pay` progress line carries
/// `elapsed_ms`, the daemon's monotonic clock since it took the command, so intervals
/// between lines are exact to the millisecond whatever the runner or the CLI were doing.
struct SwapTiming {
    /// The stages a zero-conf pay passes, in order, each at its first line.
    static let markers: [(label: String, matches: @Sendable ([String: Any], String) -> Bool)] = [
        ("route chosen", { line, _ in stage(line) == "route" && detail(line).hasPrefix("through ") }),
        ("quoted", { line, _ in stage(line) == "quoted" }),
        ("accepted", { line, _ in stage(line) == "accepted" }),
        ("pay_started", { line, _ in stage(line) == "pay_started" }),
        ("payment_in_flight", { line, _ in stage(line) == "payment_in_flight" }),
        ("lock_seen", { line, _ in stage(line) == "lock_seen" }),
        ("lock_verified", { line, _ in stage(line) == "lock_verified" }),
        ("claim_broadcast", { line, _ in stage(line) == "claim_broadcast" }),
        // The engine notes the claim once sendrawtransaction accepted it.
        ("claim in mempool", { line, claim in stage(line) == "note" && detail(line) == "claim \(claim) broadcast" }),
    ]

    /// Milliseconds since the command started, per marker (nil when the line is missing).
    let at: [Int64?]

    /// Reads a successful pay's lines; they must belong to its swap.
    init(_ outcome: PayOutcome) throws(Failure) {
        guard let result = outcome.result, let swapID = JSON.string(result["swap_id"]),
              let claim = JSON.string(result["claim_txid"]) else {
            throw Failure("\(outcome.name) has no result to time: \(outcome.said)")
        }
        at = Self.markers.map { marker in
            outcome.progress.first { marker.matches($0, claim) }.flatMap { line -> Int64? in
                if let id = JSON.string(line["swap_id"]), id != swapID { return nil }
                return JSON.int(line["elapsed_ms"])
            }
        }
        guard acceptToClaimMilliseconds != nil else {
            throw Failure("\(outcome.name) (swap \(swapID)): no `accepted` or `claim \(claim) broadcast` line of its own; "
                + "its lines: \(outcome.progress.map { "\(Self.stage($0)) \(JSON.string($0["swap_id"]) ?? "-")" }.joined(separator: ", "))")
        }
    }

    /// From the verified accept to the claim in the hub's mempool: the issue's figure.
    var acceptToClaimMilliseconds: Int64? {
        guard let accepted = at[2], let claimed = at[Self.markers.count - 1] else { return nil }
        return claimed - accepted
    }

    /// From the command's start (asking the payee for an address) to the claim in the mempool.
    var commandToClaimMilliseconds: Int64? { at[Self.markers.count - 1] }

    private static func stage(_ line: [String: Any]) -> String { JSON.string(line["stage"]) ?? "" }
    private static func detail(_ line: [String: Any]) -> String { JSON.string(line["detail"]) ?? "" }
}
