#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The on-chain → Lightning direction (issue 16) under faults, with real processes: the
/// `p2wsh_v2` contract, a client that locks less than agreed, a payee that holds the HTLC,
/// an invoice that expires before the lock confirms, a reorg that takes the lock out before
/// the payment, mainnet pace, and 50 swaps at once. Each ends with both ends agreeing on
/// every swap, every swap final, and value conserved (`SubmarineFaultNet.closing`).
enum SubmarineFaultScenarios {
    static let all: [Scenario] = [
        Scenario(name: "submarine-pay-p2wsh",
                 summary: "pay a Lightning contact from savings with the p2wsh_v2 contract: exactly X arrives, savings fall by "
                     + "the lock total + its fee", quick: true, body: payP2WSH),
        Scenario(name: "submarine-short-lock",
                 summary: "the client locks 1,000 sat less than agreed: the provider never pays, the client refunds after the "
                     + "timeout, losing only fees", quick: true, body: shortLock),
        Scenario(name: "submarine-held-htlc",
                 summary: "the payee holds the HTLCs: one released at the last block LND allows is claimed before the timeout, "
                     + "one never released fails back and is refunded", quick: true, body: SubmarineHeldHTLCScenario.run),
        Scenario(name: "submarine-invoice-expires",
                 summary: "the contact's invoice expires before the lock confirms (hub clock at 120x): nothing paid, the provider "
                     + "co-signs the client's key-path refund at once", group: .quick, hubArguments: ["--clock-rate", String(expiryClockRate)], body: invoiceExpires),
        Scenario(name: "submarine-reorg",
                 summary: "a reorg takes the confirmed lock out before the provider paid: nothing is paid against it while it is "
                     + "gone; mined again, the swap completes", quick: true, body: reorg),
        SubmarineStuckLockScenario.scenario,
    ] + SubmarinePaceAndLoadScenarios.all

    static let amountSat = SubmarineScenarios.amountSat

    /// Pays `payee` in the background (`options` after the amount), no block mined yet.
    static func startPay(_ net: Testnet, _ clock: StageClock, _ client: Node, _ payee: Node, amountSat: Int64 = amountSat,
                         options: [String] = [], name: String = "pay") throws(Failure) -> BackgroundCommand {
        let arguments = ["pay", payee.name, String(amountSat)] + options
        return try clock.stage("`peernode \(arguments.joined(separator: " "))` in the background") { () throws(Failure) -> BackgroundCommand in
            try BackgroundCommand(net, node: client, arguments, name: name)
        }
    }

    /// The lock's block, then `pay` ends by itself: the provider pays at that tip, and the
    /// client learns the preimage from the claim in the mempool. Mined by hand, not a block a
    /// second: a provider slow to pay (a loaded machine) must not see the tip run on
    /// toward the timeout meanwhile, which would shrink its `cltv_limit` below the route.
    static func mineLockAndFinish(_ net: Testnet, _ clock: StageClock, _ pay: BackgroundCommand) throws(Failure) -> [String: Any] {
        try clock.stage("mine the lock's block; `pay` ends once the provider has paid and claims") { () throws(Failure) -> [String: Any] in
            try net.hub.mine(1)
            try pay.wait(timeout: 120)
            clock.note("pay: \(pay.outcome.prefix(300))")
            guard pay.succeeded, let result = pay.result else { throw Failure("pay failed: \(pay.outcome)") }
            return result
        }
    }

    // MARK: - p2wsh_v2

    static func payP2WSH(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let started = try SubmarineFaultNet.payUnderway(net, clock, payOptions: ["--contract-type", "p2wsh_v2"])
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, erin) = (network.client, network.erin)
        defer { pay.stop() }
        // A submarine provider spends no coins of its own (its cost is its claim, paid from
        // the lock): provA has none, so it runs no reverse swaps and must still be chosen.
        let providerCoins = try network.provider.walletBalance().total
        _ = try SubmarineFaultNet.waitForLock(net, client, pay: pay)
        let result = try mineLockAndFinish(net, clock, pay)
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap")
        try SubmarineScenarios.mineUntilFinal(net, [client, network.provider])
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let lockTxid = JSON.string(result["lock_txid"]) ?? "?"
        let lockTotal = JSON.int(result["lock_total_sat"]) ?? -1
        let lock = JSON.object(try net.hub.rpc.call("getrawtransaction", [lockTxid, true]))
        let types = JSON.array(lock?["vout"]).compactMap(JSON.object).filter { JSON.sats(btc: $0["value"]) == lockTotal }
            .compactMap { JSON.string(JSON.object($0["scriptPubKey"])?["type"]) }
        let provider = try SubmarineFaultNet.shown(network.provider, SubmarineFaultNet.providerID(of: JSON.string(result["swap_id"]) ?? ""))
        return [
            Check("provA, holding no on-chain coins (submarine swaps only), was chosen", providerCoins == 0
                      && JSON.string(JSON.object(result["provider"])?["name"]) == network.provider.name,
                  "provA's wallet held \(formatSats(providerCoins)); route through \(JSON.string(JSON.object(result["provider"])?["name"]) ?? "?")"),
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            SubmarineScenarios.savingsCheck(result, before: savingsBefore, after: try client.walletBalance().total),
            Check("the lock is a P2WSH output (p2wsh_v2)", types == ["witness_v0_scripthash"],
                  "lock \(lockTxid): output of \(formatSats(lockTotal)) is \(types.joined(separator: ", "))"),
            Check("the provider's record is the p2wsh_v2 contract",
                  JSON.string(JSON.find(["script_type"], in: provider.contract["accept"])) == "p2wsh_v2",
                  "accept script_type \(JSON.string(JSON.find(["script_type"], in: provider.contract["accept"])) ?? "none")"),
        ] + (try SubmarineFaultNet.closing(net, network, before: before, expected: SubmarineFaultNet.paid))
    }

    // MARK: - a short lock

    static let shortfallSat: Int64 = 1_000

    static func shortLock(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        var options = SubmarineFaultNet.Options()
        options.clientEnvironment = ["PEERNODE_TEST_SUBMARINE_LOCK": "short:\(shortfallSat)"]
        let started = try SubmarineFaultNet.payUnderway(net, clock, options)
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        defer { pay.stop() }
        let (id, lockTxid) = try clock.stage("wait for the client's (short) lock in the mempool; mine its block") {
            () throws(Failure) -> (String, String) in
            let (id, txid) = try SubmarineFaultNet.waitForLock(net, client, pay: pay)[0]
            try net.hub.mine(1)
            return (id, txid)
        }
        let providerID = SubmarineFaultNet.providerID(of: id)
        try clock.stage("the provider sees the confirmed lock and must end the swap unpaid") { () throws(Failure) in
            try SubmarineFaultNet.wait("the provider's swap final") { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(provider, providerID).kinds.last == "lock_mismatch"
            }
        }
        let sendsAfterLock = try SubmarineFaultNet.sends(net, provider)
        let timeout = try SubmarineFaultNet.timeoutHeight(provider, providerID)
        try refundAfterTimeout(net, clock, client, id: id, timeout: timeout)
        try pay.wait(timeout: 30)
        clock.note("pay: \(pay.outcome)")
        let after = try net.hub.rpc.balances()
        let refund = try SubmarineFaultNet.refund(net, client, id)
        let lockFee = try SubmarineFaultNet.lockFee(client, id)
        let spent = savingsBefore - (try client.walletBalance().total)
        let agreed = JSON.int(JSON.find(["total_sat"], in: try SubmarineFaultNet.shown(client, id).contract["quote"])) ?? 0
        let locked = try chainValue(net, lockTxid, to: SubmarineFaultNet.shown(client, id).last)
        let mismatch = JSON.line(try SubmarineFaultNet.shown(provider, providerID).last["mismatch"])
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let sendsAtEnd = try SubmarineFaultNet.sends(net, provider)
        return [
            Check("the client's daemon armed the fault", client.logContains("submarine lock fault armed"), "log line present"),
            Check("the lock paid the contract \(formatSats(shortfallSat)) less than agreed", locked == agreed - shortfallSat,
                  "lock \(lockTxid): \(formatSats(locked)) to the contract, agreed \(formatSats(agreed))"),
            Check("the provider ended the swap lock_mismatch and never paid", sendsAfterLock == 0 && sendsAtEnd == 0,
                  "\(sendsAtEnd) /v2/router/send; mismatch \(mismatch)"),
            Check("`pay` failed saying the lock is refunded", !pay.succeeded && pay.outcome.contains("refund"), pay.outcome),
            Check("the refund confirmed only after the timeout", refund.height > timeout,
                  "refund \(refund.txid) at height \(refund.height), timeout \(timeout)"),
            Check("erin received nothing", got == 0, "+\(formatMsat(got))"),
            Check("the client lost only the lock's and the refund's fees", spent == lockFee + refund.feeSat,
                  "savings fell by \(formatSats(spent)); lock fee \(formatSats(lockFee)) + refund fee \(formatSats(refund.feeSat))"),
        ] + (try SubmarineFaultNet.closing(net, network, before: before, expected: SubmarineFaultNet.refunded))
    }

    /// The value the client's lock pays its contract, read from the chain.
    static func chainValue(_ net: Testnet, _ txid: String, to lastEvent: [String: Any]) throws(Failure) -> Int64 {
        let vout = JSON.int(JSON.object(lastEvent["lock"])?["vout"]) ?? -1
        let tx = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true]))
        let output = JSON.array(tx?["vout"]).compactMap(JSON.object).first { JSON.int($0["n"]) == vout }
        return JSON.sats(btc: output?["value"]) ?? -1
    }

    /// Mines to one block before `timeout` in one go, then a block at a time until the
    /// client's swap `id` is `refunded`.
    static func refundAfterTimeout(_ net: Testnet, _ clock: StageClock, _ client: Node, id: String,
                                   timeout: Int64) throws(Failure) {
        try clock.stage("mine to the timeout (\(timeout)), then until the client's refund confirms") { () throws(Failure) in
            try SubmarineFaultNet.mine(to: timeout - 1, net)
            let blocks = try net.mine(until: "the client's refund", blocks: 20) { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(client, id).kinds.last == "refunded"
            }
            clock.note("refunded \(blocks) block(s) after the timeout's eve")
        }
    }

    // MARK: - the invoice expires

    /// Simulated seconds per real second while waiting for the invoice to expire: erin's
    /// invoice of 2,700 s (the provider wants 2,400 s at SwapRequest: a confirmation at
    /// 10-minute blocks plus 30 minutes) passes in 22 real s. Each daemon follows the hub's
    /// clock by polling it, so a real second of lag between two of them is 120 s of skew:
    /// the quote's default 300 s lifetime leaves a client (which refuses a quote valid for
    /// more than 600 s) 2.5 real s of lag either way. (At 300x with a 600 s quote, one real
    /// second of lag under load made the client refuse the quote.)
    static let expiryClockRate = 120
    static let invoiceExpirySeconds: Int64 = 2_700

    static func invoiceExpires(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        var options = SubmarineFaultNet.Options()
        options.environment = PaceScenarios.followHub
        options.payees = [("erin", ["lightning_receive_expiry_seconds=\(invoiceExpirySeconds)"])]
        let started = try SubmarineFaultNet.payUnderway(net, clock, options)
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        defer { pay.stop() }
        let (id, lockTxid) = try SubmarineFaultNet.waitForLock(net, client, pay: pay)[0]
        // erin made the invoice before the lock existed: it expires by this reading + its expiry.
        let lockSeen = try HubClockReading(net)
        let lockedAt = try clock.stage("no block until erin's invoice has expired (2,700 s of the hub's clock), then the lock's block") {
            () throws(Failure) -> HubClockReading in
            try SubmarineFaultNet.wait("erin's invoice expiry on the hub's clock", timeout: 90) { () throws(Failure) -> Bool in
                try HubClockReading(net).unixTime > lockSeen.unixTime + invoiceExpirySeconds + 30
            }
            let reading = try HubClockReading(net)
            try net.hub.mine(1)
            return reading
        }
        let providerID = SubmarineFaultNet.providerID(of: id)
        try clock.stage("the provider sees the lock confirmed after the invoice expired: it gives up, never paying, and offers "
                        + "a cooperative refund") { () throws(Failure) in
            try SubmarineFaultNet.wait("the provider's swap given up") { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(provider, providerID).kinds.contains("payment_failed")
            }
        }
        let why = JSON.line(try SubmarineFaultNet.shown(provider, providerID).last["reason"])
        let lockHeight = try SubmarineFaultNet.confirmation(net, lockTxid)
        let timeout = try SubmarineFaultNet.timeoutHeight(provider, providerID)
        try SubmarineFaultNet.takeCooperativeRefund(net, clock, client, provider, id: id, pay: pay)
        let after = try net.hub.rpc.balances()
        let refund = try SubmarineFaultNet.refund(net, client, id)
        let refundWitness = try SubmarineCoopScenarios.witness(net, refund.txid)
        let providerKinds = try SubmarineFaultNet.shown(provider, providerID).kinds
        let spent = savingsBefore - (try client.walletBalance().total)
        let lockFee = try SubmarineFaultNet.lockFee(client, id)
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        return [
            try PaceScenarios.followChecks(net),
            Check("the lock's first confirmation came after the invoice had expired",
                  lockHeight != nil && lockedAt.unixTime > lockSeen.unixTime + invoiceExpirySeconds,
                  "lock seen at hub time \(lockSeen.unixTime), invoice made before it (expiry \(invoiceExpirySeconds) s); "
                      + "its block mined at \(lockedAt.unixTime), height \(lockHeight.map(String.init) ?? "none")"),
            Check("the provider gave up unpaid, saying why", (try SubmarineFaultNet.sends(net, provider)) == 0
                      && why.hasPrefix("never paid: "), "\(why); no /v2/router/send"),
            Check("the provider co-signed the refund from a history without a payment intent, and let the lock go",
                  providerKinds.suffix(3) == ["payment_failed", "coop_refund_signed", "released"]
                      && !providerKinds.contains("payment_intent"), providerKinds.joined(separator: " -> ")),
            Check("the refund took the key path and confirmed long before the timeout",
                  refundWitness.map(\.count) == [128] && refund.height < timeout - 50,
                  "refund \(refund.txid) at \(refund.height), timeout \(timeout)"),
            Check("erin received nothing", got == 0, "+\(formatMsat(got))"),
            Check("the client lost only the lock's and the refund's fees", spent == lockFee + refund.feeSat,
                  "savings fell by \(formatSats(spent)); lock fee \(formatSats(lockFee)) + refund fee \(formatSats(refund.feeSat))"),
        ] + (try CoopAudit.checks(net, client: client, provider: provider, since: before.height))
            + (try SubmarineFaultNet.closing(net, network, before: before, expected: ["refunded": ["released"]]))
            + (try AccountingCheck.run([client, provider], net: net))
    }

    // MARK: - a reorg before the payment

    /// The provider's Lightning balance is taken away while the lock confirms, so the swap
    /// waits at `lock_confirmed` (deep enough, not yet paid: each block's try finds too
    /// little to send); the lock's block is invalidated; with the balance back, a block
    /// without the lock must not make the provider pay; mined again, the swap completes.
    static func reorg(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let started = try SubmarineFaultNet.payUnderway(net, clock)
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        let providerSat = (before.lightningMsat(provider.name) ?? 0) / 1_000
        defer { pay.stop() }
        let (id, lockTxid) = try SubmarineFaultNet.waitForLock(net, client, pay: pay)[0]
        let providerID = SubmarineFaultNet.providerID(of: id)
        let lockBlock = try clock.stage("provA's Lightning to 0 (it cannot pay yet); mine the lock's block") { () throws(Failure) -> String in
            _ = try net.hub.rpc.call("hub_ln_setbalance", [provider.name, 0])
            try net.hub.mine(1)
            try SubmarineFaultNet.wait("provA at lock_confirmed") { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(provider, providerID).kinds.last == "lock_confirmed"
            }
            return try ChainScenarios.bestBlock(net)
        }
        let lockBlockTxids = try ChainScenarios.blockTxids(net, lockBlock)
        // Its try at that block: too little Lightning to send, so nothing left for the reorg to undo.
        let triedToPay = provider.logContains("sat sendable over Lightning")
        let (backInMempool, stateAfterReorg) = try clock.stage("invalidateblock \(lockBlock.prefix(16))…: the lock goes back to the mempool") {
            () throws(Failure) -> (Bool, String) in
            _ = try net.hub.rpc.call("invalidateblock", [lockBlock])
            let back = try SubmarineFaultNet.mempool(net).contains(lockTxid)
            var state = ""
            try SubmarineFaultNet.wait("provA off lock_confirmed") { () throws(Failure) -> Bool in
                state = try SubmarineFaultNet.shown(provider, providerID).kinds.last ?? ""
                return state != "lock_confirmed"
            }
            return (back, state)
        }
        let (sendsWhileGone, stateWhileGone) = try clock.stage("provA's Lightning back; a block without the lock (held out)") {
            () throws(Failure) -> (Int64, String) in
            _ = try net.hub.rpc.call("hub_ln_setbalance", [provider.name, providerSat])
            _ = try net.hub.rpc.call("hub_hold_transaction", [lockTxid])
            try net.hub.mine(1)
            // The provider's chain poll and a payment attempt, had it made one.
            usleep(3_000_000)
            let sends = try SubmarineFaultNet.sends(net, provider)
            _ = try net.hub.rpc.call("hub_release_transaction", [lockTxid])
            return (sends, try SubmarineFaultNet.shown(provider, providerID).kinds.last ?? "")
        }
        let erinWhileGone = (try net.hub.rpc.balances().lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let result = try mineLockAndFinish(net, clock, pay)
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap")
        try SubmarineScenarios.mineUntilFinal(net, [client, provider])
        let relocked = try ChainScenarios.confirmedBlock(net, lockTxid)
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        var checks = [
            Check("provA had the lock deep enough (lock_confirmed) and could not pay yet", triedToPay,
                  "its log: \(triedToPay ? "a payment prepared and found too little to send" : "no payment attempt")"),
            Check("the lock was in the block taken out, and back in the mempool after it",
                  lockBlockTxids.contains(lockTxid) && backInMempool, "lock \(lockTxid) in \(lockBlock.prefix(16))…; back: \(backInMempool)"),
            Check("the reorg sent provA back to waiting for the lock", ["accepted", "lock_seen"].contains(stateAfterReorg),
                  "provA at \(stateAfterReorg) after the reorg"),
            Check("nothing paid while the lock was gone, even with the balance back and a new block",
                  sendsWhileGone == 0 && erinWhileGone == 0 && ["accepted", "lock_seen"].contains(stateWhileGone),
                  "\(sendsWhileGone) /v2/router/send; erin +\(formatMsat(erinWhileGone)); provA at \(stateWhileGone)"),
            Check("the lock confirmed again in another block", relocked != nil && relocked != lockBlock,
                  "lock in \(relocked ?? "no block")"),
            Check("provA paid once, after the lock confirmed again", (try SubmarineFaultNet.sends(net, provider)) == 1,
                  "\(try SubmarineFaultNet.sends(net, provider)) /v2/router/send"),
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
        ]
        checks.append(SubmarineScenarios.savingsCheck(result, before: savingsBefore, after: try client.walletBalance().total))
        return checks + (try SubmarineFaultNet.closing(net, network, before: before, expected: SubmarineFaultNet.paid))
    }
}
