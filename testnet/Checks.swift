/// A check a run ends with: what was checked, whether it held, and the numbers behind it.
struct Check {
    let name: String
    let passed: Bool
    let detail: String

    init(_ name: String, _ passed: Bool, _ detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }

    var line: String { "\(passed ? "PASS" : "FAIL")  \(name): \(detail)" }
}

/// The checks every scenario ends with.
enum CommonChecks {
    /// Value conserved: on the chain, nothing appeared or vanished beyond the block
    /// subsidies (fees move from spenders to the miner); on Lightning, the simulator's
    /// books add up (balances + in-flight + routing fees = funding) and no funding was
    /// added or withdrawn during the run.
    static func conservation(before: HubBalances, after: HubBalances) -> [Check] {
        let chainDrift = after.chainOffsetSat - before.chainOffsetSat
        let fundedBefore = JSON.int(before.lightning["funded_msat"]) ?? 0
        let fundedAfter = JSON.int(after.lightning["funded_msat"]) ?? 0
        let totalBefore = JSON.int(before.lightning["total_msat"]) ?? 0
        let totalAfter = JSON.int(after.lightning["total_msat"]) ?? 0
        return [
            Check("chain value conserved", chainDrift == 0,
                  "unspent total \(formatSats(before.chainTotalSat)) at height \(before.height) -> \(formatSats(after.chainTotalSat)) "
                  + "at height \(after.height); subsidies mined in between \(formatSats(after.subsidiesSat - before.subsidiesSat)); "
                  + "created or lost otherwise: \(formatSats(chainDrift))"),
            Check("Lightning value conserved", after.lightningConserved && fundedBefore == fundedAfter && totalBefore == totalAfter,
                  "hub_balances conserved=\(after.lightningConserved); funded \(formatMsat(fundedBefore)) -> \(formatMsat(fundedAfter)); "
                  + "total \(formatMsat(totalBefore)) -> \(formatMsat(totalAfter)); in flight \(formatMsat(after.inFlightMsat)); "
                  + "routing fees collected \(formatMsat(after.feesCollectedMsat))"),
        ]
    }

    /// Every swap on every running node is in a final state, no Lightning HTLC is still
    /// held, and nothing waits in the mempool: the nodes, the chain and the Lightning
    /// simulator agree that nothing is pending.
    static func swapsFinal(_ nodes: [Node], hub: HubBalances) throws(Failure) -> Check {
        var total = 0
        var open: [String] = []
        for node in nodes where node.isRunning {
            // Every record, not the newest 100 `swaps` lists by default: a soak makes more.
            let swaps = JSON.array(try node.must(["swaps", "--limit", "10000"])["swaps"])
            total += swaps.count
            for swap in swaps {
                let record = JSON.object(swap) ?? [:]
                if JSON.bool(record["final"]) != true {
                    open.append("\(node.name) \(JSON.string(record["role"]) ?? "?") \(JSON.string(record["id"]) ?? "?") "
                        + "in \(JSON.string(record["state"]) ?? "?")")
                }
            }
        }
        let agreed = open.isEmpty && hub.inFlightMsat == 0 && hub.mempoolSize == 0
        var detail = "\(total) swap record(s) across \(nodes.filter(\.isRunning).count) nodes, \(open.count) not final; "
            + "Lightning in flight \(formatMsat(hub.inFlightMsat)); mempool \(hub.mempoolSize) tx"
        if !open.isEmpty { detail += "; open: " + open.joined(separator: "; ") }
        return Check("every swap final and agreed", agreed, detail)
    }
}
