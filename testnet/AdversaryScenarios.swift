#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A provider that cheats and a client that vanishes (issue 9): whoever misbehaves, the
/// honest side loses nothing. The provider's misbehaviour is injected by the daemon itself
/// (`PEERNODE_TEST_LOCK`, see Sources/PeerNode/Daemon/LockFault.swift); the client that
/// never claims is a crash point it never comes back from in time.
enum AdversaryScenarios {
    static let amountSat: Int64 = 25_000
    /// What the cheating provider keeps back from its lock in `short-lock`.
    static let shortfallSat: Int64 = 1_000

    static var all: [Scenario] {
        [
            Scenario(name: "short-lock", summary: "the provider locks \(formatSats(shortfallSat)) less than agreed: the client "
                         + "never claims, its payment returns, the provider refunds itself", group: .other, body: shortLock),
            Scenario(name: "never-locks", summary: "the provider takes the payment and never locks: the payment returns, nothing moves",
                     group: .other, body: neverLocks),
            Scenario(name: "never-claims", summary: "the client dies once it saw the lock and stays down: the provider refunds, "
                         + "the payment returns; restarted, the client agrees", group: .other, body: neverClaims),
            Scenario(name: "never-claims-after-round", summary: "the client dies once it recorded a cooperative round (never "
                         + "sent) and stays down: the provider refunds, the payment returns; restarted, the client sees "
                         + "the refund spend its lock and ends", group: .other, body: neverClaimsAfterRound),
        ]
    }

    // MARK: - scenarios

    static func shortLock(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let cheat = try payACheat(net, clock, fault: "short:\(shortfallSat)")
        let refusal = cheat.refusal
        let told = lockAmounts(in: refusal.failureText)
        let recorded = lockAmounts(in: cheat.client?.reason ?? "")
        let fees = cheat.providerFees
        var checks = [
            Check("`pay` exits non-zero naming the lock's amount and the agreed one",
                  refusal.status != 0 && told.map { $0.agreed - $0.held == shortfallSat } == true,
                  "exit \(refusal.status): \(refusal.failureText)"),
            Check("the client refused the lock: its swap failed, the reason names both amounts",
                  cheat.client?.state == "failed" && recorded.map { $0.agreed - $0.held == shortfallSat } == true,
                  "client swap \(cheat.client?.state ?? "missing"): \(cheat.client?.reason ?? "no reason")"),
            Check("the client's payment was held while the short lock stood", cheat.heldMsat > 0,
                  "in flight when `pay` ended: \(formatMsat(cheat.heldMsat))"),
            Check("once the provider cancelled, the client's `swaps` says the held payment returned (funds `returned`)",
                  cheat.clientFunds == "returned", "funds \(cheat.clientFunds ?? "not shown")"),
            // `settle` mines 6 blocks a step once 20 are mined: a provider on a slower backend
            // (Electrum's polls) may see LND give the held HTLC back before its refund is deep,
            // and ends `refunded_after_htlc_cancel`: refunded either way, which is what counts.
            Check("the provider refunded its own lock after the timeout (its wallet is down only the lock and refund fees)",
                  ["refunded", "refunded_after_htlc_cancel"].contains(cheat.provider?.state ?? "") && fees != nil && cheat.providerWalletLoss == fees.map { $0.lock + $0.refund },
                  "provider swap \(cheat.provider?.state ?? "missing"); wallet -\(formatSats(cheat.providerWalletLoss)); "
                  + (fees.map { "lock fee \(formatSats($0.lock)) + refund fee \(formatSats($0.refund))" } ?? "no refund recorded")),
        ]
        checks += cheat.nothingMoved
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: cheat.after))
        checks += CommonChecks.conservation(before: cheat.before, after: cheat.after)
        return checks
    }

    static func neverLocks(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let cheat = try payACheat(net, clock, fault: "never")
        var checks = [
            Check("`pay` exits non-zero saying the payment failed", cheat.refusal.status != 0
                      && cheat.refusal.failureText.contains("payment failed"),
                  "exit \(cheat.refusal.status): \(cheat.refusal.failureText)"),
            Check("the client's swap failed because the payment came back", cheat.client?.state == "failed"
                      && (cheat.client?.reason ?? "").contains("payment failed"),
                  "client swap \(cheat.client?.state ?? "missing"): \(cheat.client?.reason ?? "no reason")"),
            Check("the provider locked nothing and cancelled the invoice",
                  cheat.provider?.state == "cancelled" && cheat.providerWalletLoss == 0 && cheat.providerLocked == false,
                  "provider swap \(cheat.provider?.state ?? "missing"); a lock recorded: \(cheat.providerLocked); "
                  + "wallet -\(formatSats(cheat.providerWalletLoss))"),
        ]
        checks += cheat.nothingMoved
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: cheat.after))
        checks += CommonChecks.conservation(before: cheat.before, after: cheat.after)
        return checks
    }

    static func neverClaims(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // The client dies right after it stored the lock it saw, before it verifies or
        // claims it, and comes back only once the provider refunded and cancelled.
        try CrashScenarios.run(net, clock, crashing: "client", state: "lock_seen",
                               flow: CrashFlow(config: ["provA": [CrashScenarios.shortTimeout]], staysDown: true,
                                               endStates: ["client": ["failed", "abandoned"], "provider": ["refunded"]]))
    }

    static func neverClaimsAfterRound(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // The client dies right after it recorded a cooperative round, before the request
        // leaves, and comes back only once the provider refunded and cancelled. Restarted, it
        // must treat the round as possibly sent (its claim goes out at any height), find the
        // lock spent by the refund, and end rather than rebroadcast a claim forever.
        var checks = try CrashScenarios.run(net, clock, crashing: "client", state: "coop_requested",
                                            flow: CrashFlow(config: ["provA": [CrashScenarios.shortTimeout]], staysDown: true,
                                                            // The HTLC may expire before the provider cancels it
                                                            // (a slower backend): the provider refunds either way.
                                                            endStates: ["client": ["failed"],
                                                                        "provider": ["refunded", "refunded_after_htlc_cancel"]]))
        guard let client = net.nodes.first(where: { $0.name == "client" }), let swap = try client.swapList().first else {
            throw Failure("the client's swap is missing")
        }
        let outcome = JSON.object(try client.swapEvents(swap.id).last?["outcome"])
        let funds = JSON.string(outcome?["funds"]) ?? "none"
        // The round never left, the provider cancelled: the Lightning node has the money back.
        checks.append(Check("the client's swap names the refund that spent its lock and says the payment returned",
                            (swap.reason ?? "").contains("the provider refunded it") && funds == "returned"
                                && !client.logContains("ALARM"),
                            "funds \(funds): \(swap.reason ?? "no reason"); an ALARM line: \(client.logContains("ALARM"))"))
        return checks
    }

    // MARK: - building blocks

    /// What happened when the client paid a cheating provider.
    struct Cheat {
        let before: HubBalances
        let after: HubBalances
        let refusal: ToolResult
        /// Lightning in flight when `pay` ended.
        let heldMsat: Int64
        let client: SwapSummary?
        /// Where the client's `swaps` row says its money is once every swap ended (`funds`).
        let clientFunds: String?
        let provider: SwapSummary?
        let providerWalletLoss: Int64
        /// The fees of the provider's lock and of its last refund, when it refunded.
        let providerFees: (lock: Int64, refund: Int64)?
        let providerLocked: Bool
        /// carol received nothing and neither side's Lightning balance moved.
        let nothingMoved: [Check]
    }

    /// A client, a cheating provider (its daemon runs with `PEERNODE_TEST_LOCK=<fault>` and
    /// the shortest refund timeout) and carol; `pay carol` must fail; then blocks until
    /// every swap is final.
    static func payACheat(_ net: Testnet, _ clock: StageClock, fault: String) throws(Failure) -> Cheat {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                            config: ["provA": [CrashScenarios.shortTimeout]])
        let provider = providers[0]
        try clock.stage("restart \(provider.name) as a cheat: PEERNODE_TEST_LOCK=\(fault)") { () throws(Failure) in
            clock.note(try provider.restart(environment: ["PEERNODE_TEST_LOCK": fault]))
            guard provider.logContains("lock fault armed") else { throw Failure("\(provider.name) did not arm the lock fault; see its log") }
        }
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total
        let walletBefore = try provider.walletBalance().total
        let refusal = try clock.stage("pay carol \(formatSats(amountSat)): must fail") { () throws(Failure) -> ToolResult in
            try Scenario.withAutomine(net) { () throws(Failure) -> ToolResult in
                let lines = ProgressLines()
                let result = try client.cli(["pay", carol.name, String(amountSat)], timeout: 180) {
                    if let stage = lines.fresh($0) { clock.note("… " + stage) }
                }
                clock.note("exit \(result.status): \(result.failureText)")
                return result
            }
        }
        let held = try net.hub.rpc.balances().inFlightMsat
        let blocks = try clock.stage("mine until every swap is final (the provider's refund timeout included)") {
            () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().total - carolBefore
        let clientSwap = try client.swapList().first { $0.role == "client" }
        let clientFunds = try fundsOnceKnown(client)
        let providerSwap = try provider.swapList().first { $0.role == "provider" }
        let providerEvents = try providerSwap.map { (swap) throws(Failure) in try provider.swapEvents(swap.id) } ?? []
        let lastLocked = providerEvents.last { JSON.object($0["lock"]) != nil }
        let lastRefund = providerEvents.last { JSON.object($0["refund"]) != nil }
        let fees = lastRefund.flatMap { data -> (lock: Int64, refund: Int64)? in
            guard let lock = JSON.int(JSON.object(data["lock"])?["fee_sat"]),
                  let refund = JSON.int(JSON.object(data["refund"])?["fee_sat"]) else { return nil }
            return (lock, refund)
        }
        let clientChange = (after.lightningMsat(client.name) ?? 0) - (before.lightningMsat(client.name) ?? 0)
        let providerChange = (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        let nothingMoved = [
            Check("carol received nothing", received == 0, "carol +\(formatSats(received))"),
            Check("the client's Lightning balance is unchanged (the payment came back)", clientChange == 0,
                  "client \(formatMsat(before.lightningMsat(client.name))) -> \(formatMsat(after.lightningMsat(client.name)))"),
            Check("the provider was paid nothing", providerChange == 0,
                  "\(provider.name) Lightning \(formatMsat(before.lightningMsat(provider.name))) -> "
                  + formatMsat(after.lightningMsat(provider.name))),
        ]
        return Cheat(before: before, after: after, refusal: refusal, heldMsat: held, client: clientSwap,
                     clientFunds: clientFunds, provider: providerSwap,
                     providerWalletLoss: walletBefore - (try provider.walletBalance().total), providerFees: fees,
                     providerLocked: lastLocked != nil, nothingMoved: nothingMoved)
    }

    /// The `funds` of `node`'s client swap in `peernode swaps`. A swap that ended while its
    /// payment was held says `held_until_cancelled` until the daemon, following the payment,
    /// records its end: asked again for up to 5 s.
    static func fundsOnceKnown(_ node: Node) throws(Failure) -> String? {
        var funds: String?
        for _ in 0..<25 {
            let rows = JSON.array(try node.must(["swaps"])["swaps"]).compactMap { JSON.object($0) }
            funds = rows.first { JSON.string($0["role"]) == "client" }.flatMap { JSON.string($0["funds"]) }
            if funds != "held_until_cancelled" { return funds }
            usleep(200_000)
        }
        return funds
    }

    /// The (held, agreed) amounts of "the lock holds <held> sat, less than the agreed <agreed> sat".
    static func lockAmounts(in text: String) -> (held: Int64, agreed: Int64)? {
        guard let range = text.range(of: #"holds (\d+) sat, less than the agreed (\d+) sat"#, options: .regularExpression) else {
            return nil
        }
        let numbers = text[range].split { !$0.isNumber }.compactMap { Int64($0) }
        guard numbers.count == 2 else { return nil }
        return (numbers[0], numbers[1])
    }
}
