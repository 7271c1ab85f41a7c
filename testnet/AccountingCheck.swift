#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Issue 19's accounting invariant, once every swap is final: for each node, the net of
/// its swaps in `peernode report --json` equals the change of its on-chain plus Lightning
/// balance less the deposits and plus the withdrawals that were no swaps of its own (the
/// run's `BalanceLedger`), to the msat. Swaps still in flight are listed apart and never
/// counted. One check per node, each with the figures, so a failure names the node and
/// the amount it is off by.
enum AccountingCheck {
    /// How long a node's books may lag the hub: a payment settled on the hub reaches the
    /// client's engine (and its routing fee the store) a moment later.
    static let settleSeconds: TimeInterval = 15

    static func run(_ nodes: [Node], net: Testnet) throws(Failure) -> [Check] {
        let running = nodes.filter(\.isRunning)
        let reports = try booksSettled(running)
        let hub = try net.hub.rpc.balances()
        var checks: [Check] = []
        for node in nodes {
            guard node.isRunning, let report = reports[node.name] else {
                checks.append(Check("accounting \(node.name)", false, "not running: its books cannot be read"))
                continue
            }
            checks.append(try check(node, report: report, hub: hub, ledger: net.ledger))
        }
        return checks
    }

    static func check(_ node: Node, report: [String: Any], hub: HubBalances, ledger: BalanceLedger) throws(Failure) -> Check {
        guard let net = JSON.int(report["net_msat"]) else {
            throw Failure("\(node.name): `report --json` has no net_msat: \(JSON.line(report).prefix(300))")
        }
        let counted = JSON.array(report["swaps"]).count
        let inFlight = JSON.array(report["in_flight"]).compactMap(JSON.object)
        let unrecorded = JSON.int(JSON.object(JSON.object(report["overall"])?["client"])?["routing_fee_unrecorded"]) ?? 0
        let chainSat = try node.walletBalance().total
        guard let lightningMsat = hub.lightningMsat(node.name) else {
            throw Failure("the hub has no Lightning balance for \(node.name)")
        }
        // A node starts with nothing of its own: its worth now is the whole change.
        let change = chainSat * 1_000 + lightningMsat
        let outside = ledger.outsideMsat(node.name)
        let expected = change - outside
        let off = net - expected
        var detail = "report net \(formatMsat(net)) over \(counted) final swap(s); balance change \(formatMsat(change)) "
            + "(on-chain \(formatSats(chainSat)) + Lightning \(formatMsat(lightningMsat)), from 0) − outside "
            + "\(formatMsat(outside)) [\(ledger.summary(node.name))] = \(formatMsat(expected))"
        if off != 0 { detail += "; OFF BY \(formatMsat(off))" }
        if unrecorded > 0 { detail += "; \(unrecorded) routing fee(s) not recorded" }
        if !inFlight.isEmpty {
            detail += "; in flight, not counted: " + inFlight.map { swap in
                "\(JSON.string(swap["id"]) ?? "?") \(JSON.string(swap["purpose"]) ?? "?") \(formatSats(JSON.int(swap["amount_sat"])))"
            }.joined(separator: ", ")
        }
        return Check("accounting \(node.name): report net = balance change − deposits + withdrawals", off == 0 && unrecorded == 0, detail)
    }

    /// Each running node's `report --json`, read once nothing is in flight and every
    /// completed client swap has its routing fee, or when `settleSeconds` have passed
    /// (the check then shows what is missing).
    private static func booksSettled(_ nodes: [Node]) throws(Failure) -> [String: [String: Any]] {
        let deadline = Date().addingTimeInterval(settleSeconds)
        while true {
            var reports: [String: [String: Any]] = [:]
            var settled = true
            for node in nodes {
                let report = try node.must(["report"])
                reports[node.name] = report
                let unrecorded = JSON.int(JSON.object(JSON.object(report["overall"])?["client"])?["routing_fee_unrecorded"]) ?? 0
                if !JSON.array(report["in_flight"]).isEmpty || unrecorded > 0 { settled = false }
            }
            if settled || Date() > deadline { return reports }
            usleep(500_000)
        }
    }
}
