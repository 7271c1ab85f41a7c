#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The on-chain → Lightning direction at mainnet pace (2 confirmations before the provider
/// pays, 10-minute blocks on the hub's simulated clock, as `mainnet-pace` runs the reverse
/// direction) and under load (50 swaps at once through one provider, as `concurrent-50`).
enum SubmarinePaceAndLoadScenarios {
    static let all: [Scenario] = [
        Scenario(name: "submarine-mainnet-pace",
                 summary: "at mainnet pace (2 confirmations, 10-minute blocks on a 100x clock): an invoice too short for the pace "
                     + "is refused at SwapRequest, nothing locked; a swap at 2 confirmations completes",
                 group: .quick, hubArguments: PaceScenarios.hubArguments, body: mainnetPace),
        Scenario(name: "submarine-concurrent-50",
                 summary: "50 submarine swaps at once (10 clients x 5 `pay erin`) through one provider; each pays exactly its "
                     + "amount", group: .load, body: concurrent50),
    ]

    static let amountSat = SubmarineScenarios.amountSat

    // MARK: - mainnet pace

    /// frank's invoices live 40 minutes: a lock needing 2 confirmations at 10-minute blocks
    /// plus the provider's 30-minute margin needs 50.
    static let shortInvoiceSeconds = 2_400

    static func mainnetPace(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        var options = SubmarineFaultNet.Options()
        options.environment = PaceScenarios.followHub
        options.everyone = PaceScenarios.pacedConfig
        options.provider = ["submarine_confirmations=2"]
        options.payees = [("erin", []), ("frank", ["lightning_receive_expiry_seconds=\(shortInvoiceSeconds)"])]
        let network = try SubmarineFaultNet.setUp(net, clock, options)
        let (client, provider, erin, frank) = (network.client, network.provider, network.payees[0], network.payees[1])
        var checks = [try PaceScenarios.followChecks(net)]
        let before = try net.hub.rpc.balances()
        let clockBefore = try HubClockReading(net)

        let savingsBefore = try client.walletBalance().total
        let refusal = try clock.stage("pay frank \(formatSats(amountSat)) (his invoices live \(shortInvoiceSeconds / 60) minutes): must be refused") {
            () throws(Failure) -> ToolResult in
            let result = try client.cli(["pay", frank.name, String(amountSat)], timeout: 120)
            clock.note("exit \(result.status): \(result.failureText)")
            return result
        }
        let refusedSwaps = try SubmarineFaultNet.rows(client)
        var outcome: [String] = []
        for id in refusedSwaps.compactMap({ JSON.string($0["id"]) }) {
            outcome.append(JSON.string(JSON.object(try SubmarineFaultNet.shown(client, id).last["outcome"])?["funds"]) ?? "?")
        }
        let providerSwaps = try SubmarineFaultNet.rows(provider).count
        let savingsAfterRefusal = try client.walletBalance().total
        checks += [
            Check("the provider refused frank's invoice at SwapRequest with its code",
                  refusal.status != 0 && refusal.failureText.contains("invoice_expires_too_soon"), refusal.failureText),
            Check("nothing was locked: no swap at the provider, the client's swap never locked, savings untouched",
                  providerSwaps == 0 && outcome == ["never_locked"] && savingsAfterRefusal == savingsBefore,
                  "provider swaps \(providerSwaps); client swaps \(refusedSwaps.count), funds \(outcome.joined(separator: ", ")); "
                      + "savings \(formatSats(savingsBefore)) -> \(formatSats(savingsAfterRefusal))"),
        ]

        let result = try clock.stage("pay erin \(formatSats(amountSat)) while the hub mines a block every 600 simulated s") {
            () throws(Failure) -> [String: Any] in
            let lines = ProgressLines()
            let paid = try client.cli(["pay", erin.name, String(amountSat)], timeout: 300) { line in
                if let stage = lines.fresh(line) { clock.note("… " + stage) }
            }
            guard paid.ok, let json = paid.json else { throw Failure("pay erin failed (exit \(paid.status)): \(paid.failureText)") }
            return json
        }
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap")
        let id = JSON.string(result["swap_id"]) ?? "?"
        let providerID = SubmarineFaultNet.providerID(of: id)
        let lockHeight = try SubmarineFaultNet.confirmation(net, JSON.string(result["lock_txid"]) ?? "?")
        let timeout = try SubmarineFaultNet.timeoutHeight(provider, providerID)
        let limit = try provider.swapEvents(providerID).compactMap { JSON.int($0["cltv_limit"]) }.first
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
        let clockAfter = try HubClockReading(net)
        let after = try net.hub.rpc.balances()
        // cltv_limit = timeout − tip − 12 at the moment of paying.
        let paidAtTip = limit.map { timeout - 12 - $0 }
        let confirmationsAtPayment: Int64? = { () -> Int64? in
            guard let tip = paidAtTip, let lock = lockHeight else { return nil }
            return tip - lock + 1
        }()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        checks += [
            Check("the provider paid only once the lock had 2 confirmations", (confirmationsAtPayment ?? 0) >= 2,
                  "lock at height \(lockHeight.map(String.init) ?? "none"), paid at tip \(paidAtTip.map(String.init) ?? "?") "
                      + "(cltv_limit \(limit.map(String.init) ?? "?"), timeout \(timeout)): "
                      + "\(confirmationsAtPayment.map(String.init) ?? "?") confirmation(s)"),
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            SubmarineScenarios.savingsCheck(result, before: savingsBefore, after: try client.walletBalance().total),
            PaceScenarios.paceCheck(before: clockBefore, after: clockAfter, heights: (before.height, after.height), extraBlocks: blocks),
        ]
        return checks + (try SubmarineFaultNet.closing(net, network, before: before,
                                                        expected: ["completed": ["claimed"], "abandoned": ["none"]]))
    }

    // MARK: - 50 at once

    static func concurrent50(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let count = 50
        let clientCount = count / LoadNetwork.concurrentPerPeer
        let specs = (1...clientCount).map { NodeSpec(name: "client\($0)") }
            + [NodeSpec(name: "provA", lightningSat: 2_000_000, provider: true, baseFeeSat: 300, feePPM: 1_000,
                        // The provider's defaults: 288 blocks, a route allowance of 160. With the old
                        // rule (144 blocks, no allowance) 15 of 50 payments found no route: the
                        // provider paid up to 10 blocks after the accept, and erin's 80-block
                        // final delta over the hub's 40-block hop no longer fit (docs/HTLC.md,
                        // "Submarine CLTV bound").
                        extraConfig: DemoSavingsJourney.submarineConfig(baseFeeSat: 300, feePPM: 1_000)),
               NodeSpec(name: "erin", extraConfig: ["accept_onchain=0"])]
        let nodes = try clock.stage("create and start \(specs.count) nodes (\(clientCount) clients, provA, erin)") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let clients = Array(nodes.prefix(clientCount))
        let (provider, erin) = (nodes[clientCount], nodes[clientCount + 1])
        try clock.stage("fund each client's savings with \(LoadNetwork.concurrentPerPeer) coins of 40,000 sat (one block)") { () throws(Failure) in
            try net.fund(clients, sats: 40_000, coins: LoadNetwork.concurrentPerPeer)
        }
        try clock.stage("save provA and erin on every client, every client on erin") { () throws(Failure) in
            for client in clients {
                try client.saveContact(provider)
                try client.saveContact(erin)
                try erin.saveContact(client)
            }
        }
        let before = try net.hub.rpc.balances()
        var savingsBefore: [String: Int64] = [:]
        for client in clients { savingsBefore[client.name] = try client.walletBalance().total }
        let amounts = LoadNetwork.amounts(count: count)
        let outcomes = try PayBurst.run(net, clock, clients: clients, payee: erin, amounts: amounts, tag: "s50")
        let delivered = outcomes.filter { $0.result != nil }.reduce(Int64(0)) { $0 + $1.amountSat }
        net.ledger.deposit(erin.name, msat: delivered * 1_000, "paid by the clients' swaps")
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        var savingsAfter: [String: Int64] = [:]
        for client in clients { savingsAfter[client.name] = try client.walletBalance().total }
        var checks = loadChecks(outcomes, clients: clients, provider: provider, erin: erin, balances: (before, after),
                                savings: (savingsBefore, savingsAfter))
        let claimed = try SubmarineFaultNet.states(provider).filter { $0 == "claimed" }.count
        checks.append(Check("provA claimed every lock", claimed == count, "\(claimed) of \(count) claimed"))
        var disagreed: [String] = []
        for client in clients {
            let agreed = try SubmarineFaultNet.agreement(client, provider, expected: SubmarineFaultNet.paid)
            if !agreed.passed { disagreed.append("\(client.name): \(agreed.detail)") }
        }
        checks.append(Check("both ends agree on each swap's end (completed/claimed)", disagreed.isEmpty,
                            disagreed.isEmpty ? "\(count) swaps on \(clients.count) clients" : disagreed.prefix(3).joined(separator: "; ")))
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        return checks + CommonChecks.conservation(before: before, after: after)
    }

    /// Each pay succeeded with its own amount through provA; erin got the sum; each client's
    /// savings fell by exactly its locks and their fees; provA's Lightning by the sum and
    /// the routing fees; each pay's progress lines are its own swap's.
    private static func loadChecks(_ outcomes: [PayOutcome], clients: [Node], provider: Node, erin: Node,
                                   balances: (HubBalances, HubBalances),
                                   savings: ([String: Int64], [String: Int64])) -> [Check] {
        let (before, after) = balances
        var wrong: [String] = []
        var ids = Set<String>()
        var spentBy: [String: Int64] = [:]
        for (index, outcome) in outcomes.enumerated() {
            guard let result = outcome.result else { wrong.append("\(outcome.name): \(outcome.said.prefix(160))"); continue }
            let client = clients[index % clients.count].name
            spentBy[client, default: 0] += (JSON.int(result["lock_total_sat"]) ?? 0) + (JSON.int(result["lock_fee_sat"]) ?? 0)
            let through = JSON.string(JSON.object(result["provider"])?["name"])
            let id = JSON.string(result["swap_id"]) ?? "?"
            if JSON.int(result["amount_sat"]) != outcome.amountSat || through != provider.name || !ids.insert(id).inserted {
                wrong.append("\(outcome.name): \(formatSats(JSON.int(result["amount_sat"]))) through \(through ?? "?"), swap \(id)")
            }
            if Set(outcome.progress.compactMap { JSON.string($0["swap_id"]) }) != [id] { wrong.append("\(outcome.name): mixed progress") }
        }
        let asked = outcomes.reduce(Int64(0)) { $0 + $1.amountSat }
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let providerPaid = (before.lightningMsat(provider.name) ?? 0) - (after.lightningMsat(provider.name) ?? 0)
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let savingsWrong = clients.compactMap { client -> String? in
            let fell = (savings.0[client.name] ?? 0) - (savings.1[client.name] ?? 0)
            return fell == spentBy[client.name, default: 0] ? nil : "\(client.name) fell by \(formatSats(fell)), "
                + "locks + fees \(formatSats(spentBy[client.name, default: 0]))"
        }
        return [
            Check("all \(outcomes.count) pays succeeded, each its own amount through \(provider.name), its own swap and progress",
                  wrong.isEmpty, "\(outcomes.count - wrong.count) of \(outcomes.count)"
                      + (wrong.isEmpty ? "" : "; wrong: " + wrong.prefix(3).joined(separator: " | "))),
            Check("erin's Lightning rose by exactly the sum of the amounts", got == asked * 1_000,
                  "+\(formatMsat(got)) for \(formatSats(asked))"),
            Check("each client's savings fell by exactly its locks + their fees", savingsWrong.isEmpty && !spentBy.isEmpty,
                  "\(clients.count) clients, \(formatSats(spentBy.values.reduce(0, +))) in all"
                      + (savingsWrong.isEmpty ? "" : "; " + savingsWrong.prefix(3).joined(separator: "; "))),
            Check("provA paid exactly the invoices + the routing fees", providerPaid == asked * 1_000 + routing,
                  "Lightning -\(formatMsat(providerPaid)); invoices \(formatSats(asked)) + routing \(formatMsat(routing))"),
        ]
    }
}
