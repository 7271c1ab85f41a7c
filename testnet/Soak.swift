import Foundation

/// `peernode-testnet soak --minutes N [--seed S]` (issue 9): one network for the whole
/// run, so state piles up as on a real node; payments of random kind and amount, half the
/// swaps with a `kill -9` at a random persisted state of the client or the provider; after
/// each, every swap final and every sat accounted for; at the end, value conserved over the
/// whole soak and one summary line. Exit 1 when funds were lost or any check failed.
enum Soak {
    /// provA is cheaper below 150,000 sat, provB above: both carry swaps.
    static let providers: [(String, Int64, Int64)] = [("provA", 200, 3_000), ("provB", 500, 1_000)]
    /// A provider whose confirmed wallet falls under this gets `topUpSat` more from the hub
    /// (on chain, so the chain's total is unchanged: conservation needs no correction).
    static let providerFloorSat: Int64 = 600_000
    static let topUpSat: Int64 = 2_000_000

    /// Enough Lightning funds for the client never to run dry: a payment takes at least a
    /// few seconds, so 3,000,000 sat a minute is more than the largest swaps can spend.
    /// (Topping up Lightning would count as funding and upset the conservation check.)
    static func clientLightningSat(minutes: Int) -> Int64 { 1_000_000 + Int64(minutes) * 3_000_000 }
}

/// The counts the summary line reports.
struct SoakTally {
    var paidOut = 0
    var rolledBack = 0
    var sent = 0
    var neither = 0
    var crashes = 0
    var notReached = 0
    var topUps = 0
    /// Swaps that rolled back although no crash was injected.
    var failedWithoutCrash = 0
    var unaccountedMsat: Int64 = 0

    mutating func add(_ outcome: SoakSwap.Outcome) {
        switch outcome.verdict {
        case .paidOut: paidOut += 1
        case .rolledBack: rolledBack += 1
        case .sent: sent += 1
        case .neither: neither += 1
        }
        if outcome.crashed { crashes += 1 }
        if outcome.notReached { notReached += 1 }
        unaccountedMsat += outcome.unaccountedMsat
    }

    var swaps: Int { paidOut + rolledBack + neither }
}

func runSoak(_ options: SoakOptions, _ run: RunContext) -> Int32 {
    Console.out("peernode soak: random payments with random kill -9 for \(options.minutes) minute(s); "
        + "seed \(options.seed) (replay the same choices: --seed \(options.seed))")
    Console.out("run directory (data dirs and logs): \(run.directory)")
    let supervisor = Supervisor(runDirectory: run.directory)
    run.live.add(supervisor)
    let clock = StageClock()
    let began = Date()
    var tally = SoakTally()
    var checks: [Check] = []
    var deficitMsat: Int64 = 0
    do {
        let net = try clock.stage("start the regtest hub") { () throws(Failure) -> Testnet in
            try Testnet(supervisor: supervisor, binaries: run.binaries)
        }
        // Both providers run both directions: swap-ins take the client's savings back to Lightning.
        let submarine = Dictionary(uniqueKeysWithValues: Soak.providers.map { provider in
            (provider.0, DemoSavingsJourney.submarineConfig(baseFeeSat: provider.1, feePPM: provider.2))
        })
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: Soak.providers, others: ["carol"],
                                                            clientSat: Soak.clientLightningSat(minutes: options.minutes),
                                                            config: submarine)
        let start = try net.hub.rpc.balances()
        let soak = SoakSwap(net: net, clock: clock, client: client, providers: providers, carol: carol)
        var random = SoakRandom(seed: options.seed)
        let end = began.addingTimeInterval(TimeInterval(options.minutes * 60))
        var number = 0
        while Date() < end && !run.live.interrupted {
            for provider in providers {
                guard try provider.walletBalance().confirmed < Soak.providerFloorSat else { continue }
                try clock.stage("top up \(provider.name)'s wallet with \(formatSats(Soak.topUpSat)) (hub_fund)") { () throws(Failure) in
                    try net.fund([provider], sats: Soak.topUpSat)
                }
                tally.topUps += 1
            }
            let savings = try client.walletBalance().confirmed
            let hub = try net.hub.rpc.balances()
            let lightning = (hub.lightningMsat(client.name) ?? 0) / 1_000
            let providerLightning = providers.map { (hub.lightningMsat($0.name) ?? 0) / 1_000 }.max() ?? 0
            guard let plan = SoakPlan.next(savingsSat: savings, lightningSat: lightning, providerLightningSat: providerLightning,
                                           using: &random) else {
                clock.note("the client's funds cover no further payment (Lightning \(formatSats(lightning)), "
                    + "savings \(formatSats(savings))): the soak ends early")
                break
            }
            number += 1
            let title = "payment \(number): \(plan.title)"
            do {
                let outcome = try clock.stage(title) { () throws(Failure) -> SoakSwap.Outcome in try soak.run(plan, number: number) }
                tally.add(outcome)
                // Money-wise a refusal is a clean rollback, but without a crash nothing
                // should have stopped the payment: a failure worth a look all the same.
                if outcome.verdict == .rolledBack && !outcome.crashed {
                    tally.failedWithoutCrash += 1
                    checks.append(Check("\(title) went through (no crash was injected)", false,
                                        "rolled back: \(outcome.command) (seed \(options.seed))"))
                }
                if outcome.verdict == .neither {
                    checks.append(Check(title, false, "neither paid out exactly nor rolled back: \(formatMsat(outcome.unaccountedMsat)) "
                        + "unaccounted (seed \(options.seed); the lines above have the figures)"))
                }
            } catch {
                checks.append(Check("\(title) ran to the end", false, "\(error) (seed \(options.seed))"))
                break
            }
        }
        let after = try net.hub.rpc.balances()
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: start, after: after)
        checks += try clock.stage("each node's books against its balances (`peernode report --json`)") { () throws(Failure) -> [Check] in
            try AccountingCheck.run(net.nodes, net: net)
        }
        let fundedBefore = JSON.int(start.lightning["funded_msat"]) ?? 0
        deficitMsat = abs(after.chainOffsetSat - start.chainOffsetSat) * 1_000
            + abs((JSON.int(after.lightning["total_msat"]) ?? 0) - fundedBefore)
            + abs((JSON.int(after.lightning["funded_msat"]) ?? 0) - fundedBefore)
    } catch {
        checks.append(Check("the soak ran", false, "\(error) (seed \(options.seed))"))
    }
    let lostMsat = deficitMsat + tally.unaccountedMsat
    checks.append(Check("funds lost", lostMsat == 0, "conservation deficit \(formatMsat(deficitMsat)) + unaccounted in payments "
        + "\(formatMsat(tally.unaccountedMsat)) = \(formatMsat(lostMsat))"))

    Console.out("")
    Console.out("checks:")
    for check in checks { Console.out("  " + check.line) }
    let elapsed = Int(Date().timeIntervalSince(began))
    let passed = checks.allSatisfy(\.passed)
    Console.out("soak \(passed ? "PASS" : "FAIL"): \(tally.swaps) swaps (\(tally.paidOut) paid out / \(tally.rolledBack) rolled back"
        + (tally.neither > 0 ? " / \(tally.neither) NEITHER" : "") + ")"
        + (tally.failedWithoutCrash > 0 ? " (\(tally.failedWithoutCrash) rolled back without a crash)" : "") + " + \(tally.sent) paid from savings, "
        + "\(tally.crashes) crashes injected (\(tally.notReached) armed, not reached), \(tally.topUps) provider top-ups, "
        + "funds lost \(formatMsat(lostMsat)); \(elapsed / 60)m \(elapsed % 60)s, seed \(options.seed)")
    teardown(supervisor, clock: clock, run)
    return passed ? 0 : 1
}
