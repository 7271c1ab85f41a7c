#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// SUB-LIQ-3 with real processes: the client's lock is held out of blocks while the fee
/// estimate rises fivefold, as when the market moves after a broadcast. The provider pays
/// only a confirmed lock, so without help the swap would wait until the provider gives it
/// up. The client's wallet sends a child paying for the lock (the lock's txid unchanged,
/// which the provider relies on); released, the lock confirms, the provider pays, erin gets
/// exactly X, and savings fall by the lock total and what the report calls the lock's fee,
/// the child's included.
enum SubmarineStuckLockScenario {
    static let scenario = Scenario(
        name: "submarine-stuck-lock",
        summary: "the client's lock held out of blocks while the fee estimate rises 5x: a child pays for it (the lock's "
            + "txid unchanged), the swap completes, savings fall by the lock total + its fee + the child's",
        quick: true, body: run)

    static let amountSat = SubmarineFaultScenarios.amountSat

    static func run(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let started = try SubmarineFaultNet.payUnderway(net, clock)
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, erin) = (network.client, network.erin)
        defer { pay.stop() }
        let (id, lockTxid) = try SubmarineFaultNet.waitForLock(net, client, pay: pay)[0]
        let jumped = Testnet.feeRateSatPerKvB * 5
        let (child, blocks) = try clock.stage("hold the lock out of blocks, the fee estimate 5x; a block at a time until a "
                                              + "child spends it") { () throws(Failure) -> (String?, Int) in
            _ = try net.hub.rpc.call("hub_hold_transaction", [lockTxid])
            _ = try net.hub.rpc.call("hub_setfeeestimate", [jumped])
            // Up to 8 blocks, 4 s each: a loaded machine's client may hear two blocks in one
            // poll, and counts its 2 blocks from the first tip it found the lock unconfirmed at.
            for block in 1...8 {
                try net.hub.mine(1)
                var found: String?
                try? SubmarineFaultNet.wait("a child of the lock", timeout: 4) { () throws(Failure) -> Bool in
                    found = try spender(of: lockTxid, net)
                    return found != nil
                }
                if let found { return (found, block) }
            }
            return (nil, 8)
        }
        clock.note("child \(child ?? "none") after \(blocks) block(s)")
        try clock.stage("the estimate back, the lock released") { () throws(Failure) in
            _ = try net.hub.rpc.call("hub_setfeeestimate", [Testnet.feeRateSatPerKvB])
            _ = try net.hub.rpc.call("hub_release_transaction", [lockTxid])
        }
        let result = try SubmarineFaultScenarios.mineLockAndFinish(net, clock, pay)
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap")
        try SubmarineScenarios.mineUntilFinal(net, [client, network.provider])
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let lockBlock = try ChainScenarios.confirmedBlock(net, lockTxid)
        let childBlock = try child.flatMap { (txid) throws(Failure) in try ChainScenarios.confirmedBlock(net, txid) }
        let fundingFee = try SubmarineFaultNet.lockFee(client, id)
        let entry = JSON.array(try client.must(["report"])["swaps"]).compactMap(JSON.object).first { JSON.string($0["id"]) == id }
        let reported = JSON.int(entry?["lock_fee_sat"]) ?? -1
        let lockTotal = JSON.int(JSON.find(["lock_total_sat", "total_sat"], in: result)) ?? -1
        let drop = savingsBefore - (try client.walletBalance().total)
        var checks = [
            Check("a child spent the held lock within \(blocks) block(s) of the fee rise (at least 2: it waits 2 blocks)",
                  child != nil && blocks >= 2, "child \(child ?? "none") after \(blocks) block(s)"),
            Check("the lock that confirmed is the one broadcast (never replaced), and the child with it",
                  lockBlock != nil && childBlock != nil, "lock in \(lockBlock ?? "no block"), child in \(childBlock ?? "no block")"),
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            Check("the report's lock_fee_sat is the funding's fee and the child's", reported > fundingFee,
                  "report \(formatSats(reported)), the funding's own fee \(formatSats(fundingFee))"),
            Check("savings fell by exactly the lock total + the report's lock_fee_sat", drop == lockTotal + reported,
                  "-\(formatSats(drop)); lock \(formatSats(lockTotal)) + \(formatSats(reported))"),
        ]
        checks += try SubmarineFaultNet.closing(net, network, before: before, expected: SubmarineFaultNet.paid)
        return checks
    }

    /// A mempool transaction spending one of `txid`'s outputs (`getmempoolentry`'s `spentby`).
    static func spender(of txid: String, _ net: Testnet) throws(Failure) -> String? {
        let entry = JSON.object(try net.hub.rpc.call("getmempoolentry", [txid]))
        return JSON.array(entry?["spentby"]).compactMap(JSON.string).first
    }
}
