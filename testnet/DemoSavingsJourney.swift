import Foundation

/// The demo's second journey (issue 16): dave holds only on-chain savings, erin takes only
/// Lightning, and `peernode pay erin 20000` locks dave's bitcoin for the cheaper of the two
/// providers among his contacts, which pays erin's invoice and claims the lock.
struct DemoSavingsJourney {
    static let amountSat: Int64 = 20_000
    static let daveSavingsSat: Int64 = 500_000
    /// The providers' Lightning balance to pay invoices from.
    static let providerLightningSat: Int64 = 300_000

    /// erin: a node paid on Lightning only.
    static let erinSpec = NodeSpec(name: "erin", extraConfig: ["accept_onchain=0"])

    /// The submarine terms each demo provider offers besides its reverse ones: provA the
    /// cheaper, as in the first journey.
    static func submarineConfig(baseFeeSat: Int64, feePPM: Int64) -> [String] {
        ["submarine=1", "submarine_base_fee_sat=\(baseFeeSat)", "submarine_fee_ppm=\(feePPM)"]
    }

    let net: Testnet
    let clock: StageClock

    /// Runs the journey on the demo's running nodes; returns its checks.
    func run(dave: Node, erin: Node, providers: [Node], nodes: [Node]) throws(Failure) -> [Check] {
        try clock.stage("fund dave's savings with \(formatSats(Self.daveSavingsSat)) (hub_fund, mined); nothing on his Lightning") {
            () throws(Failure) in
            try net.fund([dave], sats: Self.daveSavingsSat)
        }
        try clock.stage("save dave's contacts (provA, provB, erin) and erin's (dave: she makes invoices for contacts only)") {
            () throws(Failure) in
            for other in providers + [erin] { try dave.saveContactByPubky(other) }
            try erin.saveContactByPubky(dave)
        }
        let before = try net.hub.rpc.balances()
        let daveBefore = try dave.walletBalance()
        let erinBefore = before.lightningMsat(erin.name) ?? 0
        let swapsBefore = try Self.swapCounts(providers)

        let paid = try clock.stage("pay erin \(formatSats(Self.amountSat)) from savings (`peernode pay erin \(Self.amountSat)`), blocks mined every second") {
            () throws(Failure) -> [String: Any] in
            _ = try net.hub.rpc.call("hub_automine", [1])
            defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
            let lines = ProgressLines()
            let result = try dave.cli(["pay", "erin", String(Self.amountSat)], timeout: 300) { line in
                if let stage = lines.fresh(line) { Console.out("[\(clock.stamp)]   … \(stage)") }
            }
            guard result.ok, let json = result.json else {
                let code = JSON.string(JSON.object(result.json?["error"])?["code"]).map { " [\($0)]" } ?? ""
                throw Failure("pay failed (exit \(result.status))\(code): \(result.failureText)")
            }
            clock.note(Demo.render(json))
            return json
        }
        // erin's 20,000 sat came from dave's swap: to her books, a deposit.
        net.ledger.deposit(erin.name, msat: Self.amountSat * 1_000, "paid by dave's swap")

        let mined = try clock.stage("mine until every swap is final (the provider's claim confirmed)") { () throws(Failure) -> Int in
            try net.mine(until: "the submarine swap final on dave and its provider", blocks: 30) { () throws(Failure) -> Bool in
                for node in [dave] + providers {
                    let swaps = JSON.array(try node.must(["swaps"])["swaps"])
                    if !swaps.allSatisfy({ JSON.bool(JSON.object($0)?["final"]) == true }) { return false }
                }
                return true
            }
        }
        clock.note("\(mined) more block(s) mined")
        let after = try net.hub.rpc.balances()
        clock.note(Demo.nodeTable(nodes, hub: after))

        var checks: [Check] = []
        let erinGot = (after.lightningMsat(erin.name) ?? 0) - erinBefore
        checks.append(Check("erin's Lightning balance rose by exactly \(formatSats(Self.amountSat))", erinGot == Self.amountSat * 1_000,
                            "\(formatMsat(erinBefore)) -> \(formatMsat(erinGot + erinBefore)) (+\(formatMsat(erinGot)))"))
        let daveAfter = try dave.walletBalance()
        let lockTotal = JSON.int(JSON.find(["lock_total_sat", "total_sat"], in: paid))
        let lockFee = JSON.int(JSON.find(["lock_fee_sat"], in: paid))
        let spent = daveBefore.total - daveAfter.total
        if let lockTotal, let lockFee {
            checks.append(Check("dave's savings fell by exactly the lock total + the lock's fee", spent == lockTotal + lockFee,
                                "\(formatSats(daveBefore.total)) -> \(formatSats(daveAfter.total)) (-\(formatSats(spent))); "
                                + "lock \(formatSats(lockTotal)) + fee \(formatSats(lockFee)) = \(formatSats(lockTotal + lockFee))"))
        } else {
            checks.append(Check("dave's savings fell by exactly the lock total + the lock's fee", false,
                                "the pay result names no lock_total_sat/lock_fee_sat: \(JSON.line(paid))"))
        }
        let swapsAfter = try Self.swapCounts(providers)
        let added = zip(swapsAfter, swapsBefore).map { $0 - $1 }
        let routed = JSON.string(JSON.object(paid["provider"])?["name"])
        checks.append(Check("the cheaper provider (provA) was chosen for the savings payment", added == [1, 0] && routed == providers.first?.name,
                            "route through \(routed ?? "?"); new swaps: provA \(added.first ?? 0), provB \(added.last ?? 0)"))
        checks.append(try CommonChecks.swapsFinal(nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    private static func swapCounts(_ nodes: [Node]) throws(Failure) -> [Int] {
        var counts: [Int] = []
        for node in nodes { counts.append(JSON.array(try node.must(["swaps"])["swaps"]).count) }
        return counts
    }
}
