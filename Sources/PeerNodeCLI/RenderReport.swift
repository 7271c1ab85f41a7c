import Transport

/// `peernode report`: totals overall and per day for each role, then each final swap and
/// the swaps still in flight (listed, never counted).
extension Render {
    static func report(_ result: JSONValue) -> String {
        var out: [String] = []
        let since = result["since"]?.stringValue
        out.append(since.map { "swaps ended since \($0) (UTC)" } ?? "all swaps")
        out.append("")
        out.append(totalsTable(["ROLE"], rows: ["client", "provider"].map { role in ([role], result["overall"]?[role]) }))
        out.append("net, both roles: \(msat(result["net_msat"]))")
        let days = result["days"]?.arrayValue ?? []
        if !days.isEmpty {
            out.append("")
            out.append("per day (UTC):")
            out.append(totalsTable(["DAY", "ROLE"], rows: days.flatMap { day in
                ["client", "provider"].compactMap { role -> ([String], JSONValue?)? in
                    guard let totals = day["roles"]?[role], totals["swaps"]?.int64Value ?? 0 > 0 else { return nil }
                    return ([text(day["day"]), role], totals)
                }
            }))
        }
        let swaps = result["swaps"]?.arrayValue ?? []
        if !swaps.isEmpty {
            out.append("")
            out.append(table(["ID", "ROLE", "OUTCOME", "AMOUNT", "SERVICE FEE", "ON-CHAIN FEES", "ROUTING", "NET", "ENDED"],
                             swaps.map { swap in
                [String(text(swap["id"]).prefix(12)), text(swap["purpose"]), text(swap["outcome"]), sats(swap["amount_sat"]),
                 sats(swap["service_fee_sat"]), sats(swap["onchain_fees_sat"]),
                 swap["routing_fee_msat"] == .null ? "not recorded" : msat(swap["routing_fee_msat"]), msat(swap["net_msat"]),
                 swap["ended_at"]?.int64Value.map(JSONNaming.iso8601) ?? "-"]
            }))
        }
        let running = result["in_flight"]?.arrayValue ?? []
        if !running.isEmpty {
            out.append("")
            out.append("in flight (not counted):")
            out.append(table(["ID", "ROLE", "AMOUNT", "STARTED"], running.map { swap in
                [String(text(swap["id"]).prefix(12)), text(swap["purpose"]), sats(swap["amount_sat"]),
                 swap["created_at"]?.int64Value.map(JSONNaming.iso8601) ?? "-"]
            }))
        }
        if result["overall"]?["client"]?["routing_fee_unrecorded"]?.int64Value ?? 0 > 0 {
            out.append("")
            out.append("note: the routing fee a client swap paid is not recorded; its net leaves it out.")
        }
        return out.joined(separator: "\n")
    }

    private static func totalsTable(_ keys: [String], rows: [([String], JSONValue?)]) -> String {
        table(keys + ["SWAPS", "DONE", "FAILED", "REFUNDED", "SERVICE FEES", "ON-CHAIN FEES", "ROUTING", "NET"],
              rows.map { key, totals in
            key + [text(totals?["swaps"]), text(totals?["completed"]), text(totals?["failed"]), text(totals?["refunded"]),
                   sats(totals?["service_fee_sat"]), sats(totals?["onchain_fees_sat"]), msat(totals?["routing_fee_msat"]),
                   msat(totals?["net_msat"])]
        })
    }

    /// Millisatoshis as sats with three decimals: -1,000.234 sat.
    static func msat(_ value: JSONValue?) -> String {
        guard let amount = value?.int64Value else { return text(value) }
        let magnitude = amount.magnitude
        let whole = sats(.integer(magnitude / 1_000)).dropLast(" sat".count)
        let fraction = magnitude % 1_000
        let decimals = fraction == 0 ? "" : "." + String(String(fraction + 1_000).dropFirst())
        return (amount < 0 ? "-" : "") + whole + decimals + " sat"
    }
}
