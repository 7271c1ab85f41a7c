#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One router over both rails (issue 16, docs/ROUTING.md) with real processes: `pay`,
/// `quote` and `max` choose between the direct routes and the two swap directions from
/// what the contact takes and what the wallet holds, and `--from` forces the balance.
enum RailScenarios {
    static let all: [Scenario] = [
        Scenario(name: "pay-lightning-direct", summary: "a contact that takes Lightning is paid straight from spending: exactly X, "
                     + "only the routing fee on top, no provider asked", quick: true, body: payLightningDirect),
        Scenario(name: "rails-from", summary: "--from picks the balance: savings to a Lightning-only contact swaps in (quote, "
                     + "then pay --quote), spending to it pays directly; max --from savings", quick: true, body: railsFrom),
    ]

    static let amountSat: Int64 = 20_000

    /// A client holding `lightningSat` on Lightning and `savingsSat` on chain, one provider
    /// running both directions, and erin, who takes Lightning (`onchain` too when asked).
    private static func setUp(_ net: Testnet, _ clock: StageClock, lightningSat: Int64, savingsSat: Int64,
                              erinTakesOnchain: Bool) throws(Failure) -> (client: Node, provider: Node, erin: Node) {
        let specs = [
            NodeSpec(name: "client", lightningSat: lightningSat),
            NodeSpec(name: "provA", lightningSat: DemoSavingsJourney.providerLightningSat, provider: true, baseFeeSat: 300,
                     feePPM: 1_000, extraConfig: DemoSavingsJourney.submarineConfig(baseFeeSat: 300, feePPM: 1_000)),
            NodeSpec(name: "erin", extraConfig: erinTakesOnchain ? [] : ["accept_onchain=0"], acceptsLightning: true),
        ]
        let nodes = try clock.stage("create and start 3 nodes") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let (client, provider, erin) = (nodes[0], nodes[1], nodes[2])
        try clock.stage("fund the provider's wallet" + (savingsSat > 0 ? " and the client's savings" : "")) { () throws(Failure) in
            try net.fund([provider], sats: 1_000_000)
            if savingsSat > 0 { try net.fund([client], sats: savingsSat) }
        }
        try clock.stage("save the contacts") { () throws(Failure) in
            try client.saveContact(provider)
            try client.saveContact(erin)
            try erin.saveContact(client)
        }
        return (client, provider, erin)
    }

    /// The client holds only Lightning; erin takes both rails. `pay` takes the direct
    /// Lightning route: erin gets exactly X, the client pays X and the routing fee its
    /// result names, no swap exists anywhere and the provider quoted nothing.
    static func payLightningDirect(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, erin) = try setUp(net, clock, lightningSat: 500_000, savingsSat: 0, erinTakesOnchain: true)
        let quote = try clock.stage("`peernode quote \(amountSat) --contact erin`") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["quote", String(amountSat), "--contact", "erin"], timeout: 60)
            clock.note(Demo.render(json))
            return json
        }
        let max = try clock.stage("`peernode max --contact erin`") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["max", "--contact", "erin"], timeout: 60)
            clock.note(Demo.render(json))
            return json
        }
        let before = try net.hub.rpc.balances()
        let result = try clock.stage("`peernode pay erin \(amountSat) --yes`") { () throws(Failure) -> [String: Any] in
            let lines = ProgressLines()
            let run = try client.cli(["pay", "erin", String(amountSat), "--yes"], timeout: 120) { line in
                if let stage = lines.fresh(line) { clock.note("… " + stage) }
            }
            guard run.ok, let json = run.json else { throw Failure("pay failed (exit \(run.status)): \(run.failureText)") }
            clock.note(Demo.render(json))
            return json
        }
        let routingMsat = JSON.int(result["routing_fee_msat"]) ?? -1
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client directly")
        net.ledger.withdrawal(client.name, msat: amountSat * 1_000 + routingMsat, "paid erin directly")
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let spent = (before.lightningMsat(client.name) ?? 0) - (after.lightningMsat(client.name) ?? 0)
        let swaps = try client.must(["swaps"])
        let payments = JSON.array(swaps["payments"]).compactMap(JSON.object)
        let listed = payments.first { JSON.string($0["route"]) == "direct_lightning" }
        let providerSwaps = JSON.array(try provider.must(["swaps"])["swaps"]).count
        let rail = JSON.object(result["rail"])
        // erin's node stops taking payments: the payment fails, nothing moves, the record says so.
        let failed = try clock.stage("erin's Lightning node goes offline; pay again") { () throws(Failure) -> ToolResult in
            _ = try net.hub.rpc.call("hub_ln_setonline", ["erin", false])
            defer { _ = try? net.hub.rpc.call("hub_ln_setonline", ["erin", true]) }
            let run = try client.cli(["pay", "erin", String(amountSat), "--yes"], timeout: 120)
            clock.note("exit \(run.status): \(run.failureText)")
            return run
        }
        let afterFailure = try net.hub.rpc.balances()
        let failedRecord = JSON.array(try client.must(["swaps"])["payments"]).compactMap(JSON.object)
            .first { JSON.string($0["route"]) == "direct_lightning" && JSON.string($0["status"]) != "paid" }
        return [
            Check("quote names the direct Lightning route and no provider",
                  JSON.string(JSON.object(quote["rail"])?["option"]) == "direct_lightning" && quote["provider"] == nil,
                  JSON.string(JSON.object(quote["rail"])?["reason"]) ?? JSON.line(quote)),
            // The spending balance is what LND lets the client send: its 500,000 sat channel
            // less the reserve (5,000 sat), the anchors (660) and the fee buffer (6,480).
            Check("max to erin is the spending balance less the routing reserve, directly",
                  JSON.string(max["route"]) == "direct_lightning" && JSON.int(max["balance_sat"]) == 487_860
                      && JSON.int(max["max_sat"]).map { $0 == 487_860 - (JSON.int(max["routing_reserve_sat"]) ?? -1) } == true,
                  "max \(formatSats(JSON.int(max["max_sat"]) ?? 0)) of a spending balance of "
                  + "\(formatSats(JSON.int(max["balance_sat"]) ?? 0)) via \(JSON.string(max["route"]) ?? "?")"),
            Check("pay took the direct Lightning route", JSON.string(result["route"]) == "direct_lightning"
                      && JSON.string(rail?["option"]) == "direct_lightning",
                  JSON.string(rail?["reason"]) ?? JSON.line(result)),
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            Check("the client paid exactly X plus the routing fee its result names",
                  routingMsat >= 0 && spent == amountSat * 1_000 + routingMsat,
                  "-\(formatMsat(spent)); routing fee \(formatMsat(routingMsat))"),
            Check("`swaps` lists the payment, paid, with its proof of payment",
                  JSON.string(listed?["status"]) == "paid" && (JSON.string(listed?["preimage"])?.count ?? 0) == 64,
                  listed.map { JSON.line($0) } ?? "no direct_lightning payment in \(JSON.line(swaps))"),
            Check("no swap was made by either side", JSON.array(swaps["swaps"]).isEmpty && providerSwaps == 0,
                  "client swaps \(JSON.array(swaps["swaps"]).count), provider swaps \(providerSwaps)"),
            Check("a payment the payee cannot take fails with nothing paid", !failed.ok && failed.failureText.contains("failed")
                      && failed.failureText.contains("nothing was paid"), failed.failureText),
            Check("... nothing moved, and `swaps` lists it failed", afterFailure.lightningMsat(client.name) == after.lightningMsat(client.name)
                      && afterFailure.inFlightMsat == 0 && JSON.string(failedRecord?["status"]) == "failed",
                  failedRecord.map { JSON.line($0) } ?? "no failed payment listed"),
            try CommonChecks.swapsFinal(net.nodes, hub: afterFailure),
        ] + CommonChecks.conservation(before: before, after: afterFailure)
    }

    /// The client holds both balances; erin takes only Lightning. `quote --from savings`
    /// quotes a submarine swap, `pay --quote` commits it (erin +X, savings −lock−fee);
    /// `pay --from spending` pays erin directly; `max --from savings` is a submarine max.
    static func railsFrom(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, erin) = try setUp(net, clock, lightningSat: 300_000, savingsSat: 400_000, erinTakesOnchain: false)
        let max = try clock.stage("`peernode max --from savings --contact erin`") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["max", "--from", "savings", "--contact", "erin"], timeout: 120)
            clock.note(Demo.render(json))
            return json
        }
        let quote = try clock.stage("`peernode quote \(amountSat) --contact erin --from savings`") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["quote", String(amountSat), "--contact", "erin", "--from", "savings"], timeout: 60)
            clock.note(Demo.render(json))
            return json
        }
        guard let quoteID = JSON.string(quote["quote_id"]) else { throw Failure("the savings quote has no id: \(JSON.line(quote))") }
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let swapped = try SubmarineScenarios.run(net, clock, client, ["pay", "erin", String(amountSat), "--quote", quoteID, "--yes"])
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's submarine swap")
        try SubmarineScenarios.mineUntilFinal(net, [client, provider])
        let savingsAfter = try client.walletBalance().total
        let middle = try net.hub.rpc.balances()
        let direct = try clock.stage("`peernode pay erin \(amountSat) --from spending --yes`") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["pay", "erin", String(amountSat), "--from", "spending", "--yes"], timeout: 120)
            clock.note(Demo.render(json))
            return json
        }
        let routingMsat = JSON.int(direct["routing_fee_msat"]) ?? -1
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client directly")
        let after = try net.hub.rpc.balances()
        let erinFirst = (middle.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let erinSecond = (after.lightningMsat(erin.name) ?? 0) - (middle.lightningMsat(erin.name) ?? 0)
        let clientSpent = (middle.lightningMsat(client.name) ?? 0) - (after.lightningMsat(client.name) ?? 0)
        let maxSat = JSON.int(max["max_sat"]) ?? 0
        return [
            // The provider's onchain_to_ln maximum follows its Lightning balance (300,000 sat),
            // below these savings: either bound may be the one that holds.
            Check("max --from savings to erin is a submarine swap within the savings and the provider's reach",
                  JSON.string(max["route"]) == "submarine_swap" && maxSat > 250_000 && maxSat < 400_000,
                  "max \(formatSats(maxSat)) via \(JSON.string(max["route"]) ?? "?")"),
            Check("quote --from savings is a submarine quote from provA",
                  JSON.string(JSON.object(quote["rail"])?["option"]) == "submarine_swap"
                      && JSON.string(JSON.object(quote["provider"])?["name"]) == provider.name,
                  JSON.string(JSON.object(quote["rail"])?["reason"]) ?? JSON.line(quote)),
            Check("pay --quote committed that quote", JSON.string(swapped["quote_id"]) == quoteID
                      && JSON.string(swapped["status"]) == "paid", JSON.line(swapped)),
            Check("erin received exactly \(formatSats(amountSat)) from the swap", erinFirst == amountSat * 1_000, "+\(formatMsat(erinFirst))"),
            SubmarineScenarios.savingsCheck(swapped, before: savingsBefore, after: savingsAfter),
            Check("--from spending paid erin directly", JSON.string(direct["route"]) == "direct_lightning", JSON.line(direct)),
            Check("erin received exactly \(formatSats(amountSat)) from the direct payment", erinSecond == amountSat * 1_000,
                  "+\(formatMsat(erinSecond))"),
            Check("the client's spending fell by exactly X plus the routing fee", clientSpent == amountSat * 1_000 + routingMsat,
                  "-\(formatMsat(clientSpent)); routing fee \(formatMsat(routingMsat))"),
            try CommonChecks.swapsFinal(net.nodes, hub: after),
        ] + CommonChecks.conservation(before: before, after: after)
    }
}
