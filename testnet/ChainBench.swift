import Foundation

/// `peernode-testnet bench --chain electrum` (issue 18's figure): the benchmark's accept ->
/// claim latency on Electrum against Core in the same run. The same sequential swaps
/// (`SwapBench.sequentialPays`, zero-conf, a block a second) run twice, each on a network
/// of its own: every node on the hub's Bitcoin Core RPC, then every node on a real
/// ElectrumX over a fresh hub (trusted, loopback, as `electrum-pay`). Each network ends
/// with the benchmark's delivery, "final and agreed" and conservation checks.
enum ChainBench {
    struct Leg {
        let backend: String
        var latencies: [Double] = []
        var commandToClaim: [Double] = []
        var checks: [Check] = []
        var failure: String?
    }

    static func run(_ run: RunContext, _ options: BenchOptions) -> Int32 {
        Console.out("peernode bench --chain electrum: \(options.swaps) sequential swaps with every node on Bitcoin Core, "
            + "then on a real ElectrumX, zero-conf, real daemons, `peernode pay`")
        Console.out("run directory (data dirs and logs): \(run.directory)")
        Console.out("cores: \(ProcessInfo.processInfo.activeProcessorCount), load average at start: \(Bench.loadAverage())")
        let legs = [leg(run, options, electrum: false), leg(run, options, electrum: true)]
        Console.out("")
        Console.out("checks:")
        for leg in legs {
            for check in leg.checks { Console.out("  [\(leg.backend)] " + check.line) }
            if let failure = leg.failure { Console.out("  [\(leg.backend)] FAILED: \(failure)") }
        }
        Console.out("")
        Console.out(report(legs))
        Console.out("load average at the end: \(Bench.loadAverage())")
        let passed = legs.allSatisfy { $0.failure == nil && !$0.checks.isEmpty && $0.checks.allSatisfy(\.passed) }
        Console.out(passed ? "bench --chain electrum: every check passed" : "bench --chain electrum FAILED")
        return passed ? 0 : 1
    }

    /// One network, its own hub and supervisor under `<run>/<backend>`, torn down at the end.
    private static func leg(_ run: RunContext, _ options: BenchOptions, electrum: Bool) -> Leg {
        var leg = Leg(backend: electrum ? "electrum" : "bitcoind")
        let directory = run.directory + "/" + leg.backend
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let supervisor = Supervisor(runDirectory: directory)
        run.live.add(supervisor)
        let clock = StageClock()
        Console.out("")
        Console.out("=== every node on \(electrum ? "ElectrumX" : "Bitcoin Core")")
        do {
            let net = try clock.stage("start the regtest hub") { () throws(Failure) -> Testnet in
                try Testnet(supervisor: supervisor, binaries: run.binaries)
            }
            if electrum {
                let server = try ElectrumNodeScenarios.startElectrumX(net, clock)
                net.chainConfig = server.nodeConfig(trusted: true)
            }
            let bench = SwapBench(net: net, clock: clock, options: options)
            var figures = BenchFigures(primitives: HubPrimitives(holdRoundTrips: [], mempoolAccepts: []))
            let clients = (options.swaps + LoadNetwork.swapsPerPeerPerHour - 1) / LoadNetwork.swapsPerPeerPerHour
            let load = try LoadNetwork.setUp(net, clock, clients: clients, clientSat: Int64(LoadNetwork.swapsPerPeerPerHour) * 60_000,
                                             providerCoins: 10, coinSat: 400_000)
            let before = try net.hub.rpc.balances()
            let payeeBefore = try load.payee.walletBalance().total
            let outcomes = try clock.stage("\(options.swaps) swaps one after another over \(clients) clients, a block a second") {
                () throws(Failure) -> [PayOutcome] in
                try Scenario.withAutomine(net) { () throws(Failure) -> [PayOutcome] in
                    try bench.sequentialPays(load.clients, payee: load.payee, figures: &figures)
                }
            }
            let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
            clock.note("mined \(blocks) block(s)")
            let after = try net.hub.rpc.balances()
            let payeeGain = try load.payee.walletBalance().total - payeeBefore
            leg.checks = load.deliveryChecks(outcomes, before: before, after: after, payeeGain: payeeGain)
            leg.checks.append(Check("every swap timed from its own progress lines", figures.timings.count == options.swaps,
                                    "\(figures.timings.count) of \(options.swaps)"))
            leg.checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
            leg.checks += CommonChecks.conservation(before: before, after: after)
            leg.latencies = figures.timings.compactMap(\.acceptToClaimMilliseconds).map(Double.init)
            leg.commandToClaim = figures.timings.compactMap(\.commandToClaimMilliseconds).map(Double.init)
        } catch {
            leg.failure = "\(error)"
        }
        teardown(supervisor, clock: clock, run)
        return leg
    }

    static func report(_ legs: [Leg]) -> String {
        func ms(_ values: [Double], _ q: Double) -> String { values.isEmpty ? "-" : String(format: "%.1f ms", Bench.quantile(values, q)) }
        var rows = [["backend", "swaps", "accept -> claim p50", "p90", "p99", "command -> claim p50"]]
        for leg in legs {
            rows.append([leg.backend, String(leg.latencies.count), ms(leg.latencies, 0.5), ms(leg.latencies, 0.9),
                         ms(leg.latencies, 0.99), ms(leg.commandToClaim, 0.5)])
        }
        var lines = [Bench.table(rows)]
        if legs.count == 2, !legs[0].latencies.isEmpty, !legs[1].latencies.isEmpty {
            let core = Bench.quantile(legs[0].latencies, 0.5), electrum = Bench.quantile(legs[1].latencies, 0.5)
            lines.append(String(format: "accept -> claim p50 on ElectrumX / on Core: %.2fx", core > 0 ? electrum / core : 0))
        }
        lines.append("accept -> claim: the client daemon's own clock, from the verified accept to sendrawtransaction's "
            + "acceptance of the claim (zero-conf: the lock seen in the mempool through the backend).")
        return lines.joined(separator: "\n")
    }
}
