#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The provider's refund under a hostile chain: a fee spike at the timeout (audit H-4) and
/// a reorg that takes the refund's first confirmation away (audit M-2). In both the client
/// never claims: it refuses a lock 1,000 sat short (`PEERNODE_TEST_LOCK=short:1000`, as in
/// `short-lock`), so the provider's only way back to its coins is its refund, and the
/// client's payment must come back only once that refund is safely deep.
enum RefundScenarios {
    /// The mempool minimum the hub turns to at the timeout: 200 sat/vB, 200 times the
    /// quiet chain's rate. `estimatesmartfee` never answers below it.
    static let spikeSatPerKvB: Int64 = 200_000

    static var all: [Scenario] {
        [
            Scenario(name: "refund-fee-spike", summary: "the mempool minimum jumps to 200 sat/vB before the refund is valid: the "
                         + "refund still confirms 6 deep before the HTLC's expiry - 12; the payment returns", group: .other,
                     body: feeSpike),
            Scenario(name: "refund-reorg", summary: "the refund's block is invalidated at 1 confirmation: the invoice stays "
                         + "held, the refund confirms again, refunded at depth 6; the payment returns", group: .other,
                     body: reorg),
            pushOnlyScenario,
        ]
    }

    /// The provider pushes its signed lock and never broadcasts it. The client never claims
    /// (its node does not hold the lock) and never reveals the preimage; at the client's
    /// claim cutoff the provider takes the lock back (its inputs spent to its wallet, audit
    /// H-4), and once that is deep it cancels the invoice: the swap ends `cancelled`.
    static let pushOnlyScenario = Scenario(name: "hostile-provider-push-only", summary: "the provider pushes its signed lock "
                                               + "and never broadcasts it: no claim, no preimage, the payment returns",
                                           group: .other, body: pushOnly)

    // MARK: - scenarios

    /// Audit H-3: the client must claim only a lock its own node holds.
    static func pushOnly(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let cheat = try AdversaryScenarios.payACheat(net, clock, fault: "push-only")
        let clientEvents = try cheat.client.map { (swap) throws(Failure) in try net.node("client")?.swapEvents(swap.id) ?? [] } ?? []
        let providerEvents = try cheat.provider.map { (swap) throws(Failure) in try net.node("provA")?.swapEvents(swap.id) ?? [] } ?? []
        let claimed = clientEvents.contains { JSON.object($0["claim"]) != nil }
        let settledOrClaimSeen = providerEvents.contains { $0["preimage"] != nil }
        let lock = providerEvents.compactMap { JSON.object($0["lock"]) }.first
        let lockHex = lock.flatMap { JSON.string($0["tx"]) }
        let builtAt = lock.flatMap { JSON.int($0["height"]) } ?? 0
        let lockMined = try lockHex.map { (hex) throws(Failure) in try findTransaction(net, hex: hex, since: builtAt) != nil } ?? false
        var checks = [
            Check("the client never claimed (no claim recorded)", !claimed, "client swap \(cheat.client?.state ?? "missing")"),
            Check("the provider never saw a preimage (no claim_observed, no settle)",
                  !settledOrClaimSeen && cheat.provider?.state != "settled", "provider swap \(cheat.provider?.state ?? "missing")"),
            Check("the provider took its never-broadcast lock back and ended cancelled",
                  cheat.provider?.state == "cancelled" && lockHex != nil && !lockMined,
                  "provider swap \(cheat.provider?.state ?? "missing"); lock \(lockMined ? "mined" : "never mined")"),
        ]
        checks += cheat.nothingMoved
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: cheat.after))
        checks += CommonChecks.conservation(before: cheat.before, after: cheat.after)
        return checks
    }

    static func feeSpike(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // A large swap: at 200 sat/vB a refund costs about 22,000 sat, which the escalation
        // may spend on a 100,000 sat lock well before its deadline.
        let refused = try refusedPay(net, clock, amountSat: 100_000)
        let provider = refused.provider
        try clock.stage("the hub turns hostile: hub_setmempoolminfee \(formatSats(spikeSatPerKvB))/kvB") { () throws(Failure) in
            _ = try net.hub.rpc.call("hub_setmempoolminfee", [spikeSatPerKvB])
        }
        let refundedAt = try clock.stage("mine one block at a time until the provider's swap is refunded") { () throws(Failure) -> Int64 in
            try mineUntilRefunded(net, provider, maxBlocks: 150)
        }
        let expiry = refused.htlcExpiry
        clock.note("provider refunded at height \(refundedAt); the HTLC expires at \(expiry), LND gives it back at \(expiry - 12)")
        let refund = try lastRefund(provider)
        let found = try findTransaction(net, hex: refund.hex, since: refused.startHeight)
        _ = try net.hub.rpc.call("hub_setmempoolminfee", [0])
        let after = try settled(net, clock)
        let sixDeepAt = found.map { $0.height + 5 }
        var checks = [
            Check("the refund paid at least the spike's rate", refund.rateSatPerKvB >= spikeSatPerKvB,
                  "refund at \(formatSats(refund.rateSatPerKvB))/kvB, fee \(formatSats(refund.feeSat))"),
            Check("the refund confirmed 6 deep below the HTLC's expiry - 12",
                  sixDeepAt.map { $0 < expiry - 12 } == true && refundedAt < expiry - 12,
                  "refund mined at height \(found.map { String($0.height) } ?? "none"), 6 deep at \(sixDeepAt.map(String.init) ?? "never"); "
                  + "swap refunded at \(refundedAt); E - 12 = \(expiry - 12)"),
        ]
        checks += try outcome(net, refused, after: after)
        return checks
    }

    static func reorg(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let refused = try refusedPay(net, clock, amountSat: 25_000)
        let provider = refused.provider
        let lockTxid = try findTransaction(net, hex: refused.lockHex, since: refused.startHeight)?.txid
        guard let lockTxid else { throw Failure("the provider's lock is not in any block since height \(refused.startHeight)") }
        let (refundTxid, refundBlock) = try clock.stage("mine one block at a time until a refund of lock \(lockTxid.prefix(16))… is in a block") {
            () throws(Failure) -> (String, String) in
            for _ in 0..<120 {
                try net.hub.mine(1)
                usleep(300_000)
                let tip = try ChainScenarios.bestBlock(net)
                let block = JSON.object(try net.hub.rpc.call("getblock", [tip, 2]))
                for tx in JSON.array(block?["tx"]).compactMap(JSON.object) where spends(tx, lockTxid) {
                    return (JSON.string(tx["txid"]) ?? "?", tip)
                }
            }
            throw Failure("no refund of \(lockTxid) was mined within 120 blocks")
        }
        // The provider follows the chain every 2 s; give it time to see the confirmation.
        usleep(2_500_000)
        let atOne = try ChainScenarios.onlySwap(provider, role: "provider")
        let heldAtOne = try net.hub.rpc.balances().inFlightMsat
        clock.note("refund \(refundTxid.prefix(16))… at 1 confirmation: provider swap \(atOne.state); in flight \(formatMsat(heldAtOne))")
        let mempool = try clock.stage("invalidateblock \(refundBlock.prefix(16))… (the refund's block)") { () throws(Failure) -> [String] in
            _ = try net.hub.rpc.call("invalidateblock", [refundBlock])
            usleep(2_500_000)
            return JSON.array(try net.hub.rpc.call("getrawmempool")).compactMap(JSON.string)
        }
        let afterReorg = try ChainScenarios.onlySwap(provider, role: "provider")
        let heldAfterReorg = try net.hub.rpc.balances().inFlightMsat
        clock.note("after the reorg: provider swap \(afterReorg.state); in flight \(formatMsat(heldAfterReorg))")
        let refundedAt = try clock.stage("mine one block at a time until the provider's swap is refunded") { () throws(Failure) -> Int64 in
            try mineUntilRefunded(net, provider, maxBlocks: 60)
        }
        let final = try lastRefund(provider)
        let confirmedAgain = try findTransaction(net, hex: final.hex, since: refused.startHeight)
        let depth = confirmedAgain.map { refundedAt - $0.height + 1 }
        let after = try settled(net, clock)
        var checks = [
            Check("at 1 confirmation the invoice is still held: the provider's swap is not refunded",
                  atOne.state != "refunded" && heldAtOne > 0, "provider swap \(atOne.state); in flight \(formatMsat(heldAtOne))"),
            Check("the reorg put the refund back in the mempool", mempool.contains(refundTxid),
                  "mempool: \(mempool.joined(separator: ", "))"),
            Check("after the reorg the invoice is still held", afterReorg.state != "refunded" && heldAfterReorg > 0,
                  "provider swap \(afterReorg.state); in flight \(formatMsat(heldAfterReorg))"),
            Check("the refund confirmed again and the swap ended refunded at depth 6 or more",
                  depth.map { $0 >= 6 } == true,
                  "refund \(confirmedAgain?.txid ?? "not found") mined again at height \(confirmedAgain.map { String($0.height) } ?? "none"); "
                  + "refunded at height \(refundedAt) (depth \(depth.map(String.init) ?? "none"))"),
        ]
        checks += try outcome(net, refused, after: after)
        return checks
    }

    // MARK: - building blocks

    /// A pay the client refused: the provider holds the payment and a confirmed lock the
    /// client will never claim.
    struct Refused {
        let client: Node
        let provider: Node
        let carol: Node
        let before: HubBalances
        let carolBefore: Int64
        /// The chain's height before the pay: the lock and the refund come after it.
        let startHeight: Int64
        let lockHex: String
        /// E: the held HTLC's expiry, from the provider's lock record.
        let htlcExpiry: Int64
    }

    static func refusedPay(_ net: Testnet, _ clock: StageClock, amountSat: Int64) throws(Failure) -> Refused {
        let fault = "short:\(AdversaryScenarios.shortfallSat)"
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                            config: ["provA": [CrashScenarios.shortTimeout]])
        let provider = providers[0]
        try clock.stage("restart \(provider.name) as a cheat: PEERNODE_TEST_LOCK=\(fault)") { () throws(Failure) in
            clock.note(try provider.restart(environment: ["PEERNODE_TEST_LOCK": fault]))
        }
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total
        let refusal = try clock.stage("pay carol \(formatSats(amountSat)): the client refuses the short lock") { () throws(Failure) -> ToolResult in
            try Scenario.withAutomine(net) { () throws(Failure) -> ToolResult in
                try client.cli(["pay", carol.name, String(amountSat)], timeout: 180)
            }
        }
        clock.note("exit \(refusal.status): \(refusal.failureText)")
        guard refusal.status != 0 else { throw Failure("`pay` succeeded against a provider locking short") }
        // A zero-conf refusal can come before the lock is in a block: mine it.
        try net.hub.mine(1)
        usleep(500_000)
        let swap = try ChainScenarios.onlySwap(provider, role: "provider")
        let lock = try provider.swapEvents(swap.id).compactMap { JSON.object($0["lock"]) }.last
        guard let lockHex = JSON.string(lock?["tx"]), let expiry = JSON.int(lock?["htlc_expiry"]) else {
            throw Failure("\(provider.name)'s swap \(swap.id) (\(swap.state)) records no lock with an HTLC expiry")
        }
        clock.note("provider swap \(swap.state); the HTLC expires at height \(expiry)")
        return Refused(client: client, provider: provider, carol: carol, before: before, carolBefore: carolBefore,
                       startHeight: before.height, lockHex: lockHex, htlcExpiry: expiry)
    }

    /// Mines a block at a time until the provider's one swap is `refunded`; the height then.
    static func mineUntilRefunded(_ net: Testnet, _ provider: Node, maxBlocks: Int) throws(Failure) -> Int64 {
        var state = ""
        for _ in 0...maxBlocks {
            state = try ChainScenarios.onlySwap(provider, role: "provider").state
            if state == "refunded" { return try net.hub.rpc.balances().height }
            try net.hub.mine(1)
            // Before the timeout only blocks are missing; once refunding, the provider
            // (following the chain every 2 s) needs time to rebuild or bump its refund.
            usleep(state.hasPrefix("refund") ? 700_000 : 250_000)
        }
        throw Failure("\(provider.name)'s swap is \(state), not refunded, after \(maxBlocks) blocks")
    }

    /// The refund the provider's record names last (the version the chain took).
    static func lastRefund(_ provider: Node) throws(Failure) -> (hex: String, feeSat: Int64, rateSatPerKvB: Int64) {
        let swap = try ChainScenarios.onlySwap(provider, role: "provider")
        let refund = try provider.swapEvents(swap.id).compactMap { JSON.object($0["refund"]) }.last
        guard let hex = JSON.string(refund?["tx"]) else { throw Failure("\(provider.name)'s swap \(swap.id) records no refund") }
        return (hex, JSON.int(refund?["fee_sat"]) ?? 0, JSON.int(refund?["fee_rate_sat_kvb"]) ?? 0)
    }

    /// The active-chain transaction whose serialization is `hex`, mined above `height`:
    /// its txid and block height. (The records keep transactions, not txids.)
    static func findTransaction(_ net: Testnet, hex: String, since height: Int64) throws(Failure) -> (txid: String, height: Int64)? {
        let tip = try net.hub.rpc.balances().height
        guard tip > height else { return nil }
        for blockHeight in (height + 1)...tip {
            guard let hash = JSON.string(try net.hub.rpc.call("getblockhash", [blockHeight])) else { continue }
            let block = JSON.object(try net.hub.rpc.call("getblock", [hash, 2]))
            for tx in JSON.array(block?["tx"]).compactMap(JSON.object) where JSON.string(tx["hex"]) == hex {
                return (JSON.string(tx["txid"]) ?? "?", blockHeight)
            }
        }
        return nil
    }

    static func spends(_ tx: [String: Any], _ txid: String) -> Bool {
        JSON.array(tx["vin"]).compactMap(JSON.object).contains { JSON.string($0["txid"]) == txid }
    }

    static func settled(_ net: Testnet, _ clock: StageClock) throws(Failure) -> HubBalances {
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
        clock.note("mined \(blocks) more block(s)")
        return try net.hub.rpc.balances()
    }

    /// The end every refund scenario shares: the client refused, the provider refunded,
    /// the payment came back, carol got nothing, every swap final, value conserved.
    static func outcome(_ net: Testnet, _ refused: Refused, after: HubBalances) throws(Failure) -> [Check] {
        let before = refused.before
        let client = refused.client
        let provider = refused.provider
        let clientState = try ChainScenarios.onlySwap(client, role: "client").state
        let providerState = try ChainScenarios.onlySwap(provider, role: "provider").state
        let received = try refused.carol.walletBalance().total - refused.carolBefore
        let clientChange = (after.lightningMsat(client.name) ?? 0) - (before.lightningMsat(client.name) ?? 0)
        let providerChange = (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        var checks = [
            Check("the client's swap failed and the provider's is refunded", clientState == "failed" && providerState == "refunded",
                  "client \(clientState), provider \(providerState)"),
            Check("the client's payment came back (its Lightning balance is unchanged)", clientChange == 0,
                  "client \(formatMsat(before.lightningMsat(client.name))) -> \(formatMsat(after.lightningMsat(client.name)))"),
            Check("the provider was paid nothing", providerChange == 0, "\(provider.name) Lightning change \(formatMsat(providerChange))"),
            Check("carol received nothing", received == 0, "carol +\(formatSats(received))"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }
}
