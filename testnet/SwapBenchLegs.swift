import Foundation

/// The benchmark's sequential swaps (`SwapBench.sequentialPays`, zero-conf, a block a
/// second) run once per variant, each on a network of its own, in one run, and compared in
/// one table: `bench --chain electrum` (every node on Bitcoin Core, then on a real
/// ElectrumX; issue 18) and `bench --coop` (every claim through the script path with
/// `musig2=0`, then through the key path with `musig2=1`; issue 17). Each network ends with
/// the benchmark's delivery, "final and agreed" and conservation checks.
enum BenchLegs {
    /// How one leg's network differs: its name, a title, and what to do to the network
    /// before its nodes are created.
    struct Variant {
        let name: String
        let title: String
        let prepare: (Testnet, StageClock) throws(Failure) -> Void
    }

    struct Leg {
        let name: String
        var latencies: [Double] = []
        var commandToClaim: [Double] = []
        /// Each swap's claim as `pay` reported it: path, vsize, fee paid.
        var claims: [(path: String, vsize: Int64, fee: Int64)] = []
        var checks: [Check] = []
        var failure: String?
    }

    static func run(_ run: RunContext, _ options: BenchOptions, headline: String, variants: [Variant],
                    ratio: String) -> Int32 {
        Console.out(headline)
        Console.out("run directory (data dirs and logs): \(run.directory)")
        Console.out("cores: \(ProcessInfo.processInfo.activeProcessorCount), load average at start: \(Bench.loadAverage())")
        let legs = variants.map { leg(run, options, $0) }
        Console.out("")
        Console.out("checks:")
        for leg in legs {
            for check in leg.checks { Console.out("  [\(leg.name)] " + check.line) }
            if let failure = leg.failure { Console.out("  [\(leg.name)] FAILED: \(failure)") }
        }
        Console.out("")
        Console.out(report(legs, ratio: ratio))
        Console.out("load average at the end: \(Bench.loadAverage())")
        let passed = legs.allSatisfy { $0.failure == nil && !$0.checks.isEmpty && $0.checks.allSatisfy(\.passed) }
        Console.out(passed ? "bench: every check passed" : "bench FAILED")
        return passed ? 0 : 1
    }

    /// One network, its own hub and supervisor under `<run>/<variant>`, torn down at the end.
    private static func leg(_ run: RunContext, _ options: BenchOptions, _ variant: Variant) -> Leg {
        var leg = Leg(name: variant.name)
        let directory = run.directory + "/" + variant.name
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let supervisor = Supervisor(runDirectory: directory)
        run.live.add(supervisor)
        let clock = StageClock()
        Console.out("")
        Console.out("=== \(variant.title)")
        do {
            let net = try clock.stage("start the regtest hub") { () throws(Failure) -> Testnet in
                try Testnet(supervisor: supervisor, binaries: run.binaries)
            }
            try variant.prepare(net, clock)
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
            leg.claims = outcomes.compactMap(\.result).map { result in
                (JSON.string(result["claim_path"]) ?? "?", JSON.int(result["claim_vsize_vb"]) ?? 0, JSON.int(result["claim_fee_paid_sat"]) ?? 0)
            }
        } catch {
            leg.failure = "\(error)"
        }
        teardown(supervisor, clock: clock, run)
        return leg
    }

    static func report(_ legs: [Leg], ratio: String) -> String {
        func ms(_ values: [Double], _ q: Double) -> String { values.isEmpty ? "-" : String(format: "%.1f ms", Bench.quantile(values, q)) }
        var rows = [["leg", "swaps", "accept -> claim p50", "p90", "p99", "command -> claim p50", "claims (path, vB, fee)"]]
        for leg in legs {
            // The claims' shapes, most common first: "key_path 111 vB 152 sat x20".
            var shapes: [String: Int] = [:]
            for claim in leg.claims { shapes["\(claim.path) \(claim.vsize) vB \(claim.fee) sat", default: 0] += 1 }
            let shown = shapes.sorted { $0.value > $1.value }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
            rows.append([leg.name, String(leg.latencies.count), ms(leg.latencies, 0.5), ms(leg.latencies, 0.9),
                         ms(leg.latencies, 0.99), ms(leg.commandToClaim, 0.5), shown.isEmpty ? "-" : shown])
        }
        var lines = [Bench.table(rows)]
        if legs.count == 2, !legs[0].latencies.isEmpty, !legs[1].latencies.isEmpty {
            let first = Bench.quantile(legs[0].latencies, 0.5), second = Bench.quantile(legs[1].latencies, 0.5)
            lines.append(String(format: "\(ratio): %.2fx (%+.1f ms)", first > 0 ? second / first : 0, second - first))
        }
        lines.append("accept -> claim: the client daemon's own clock, from the verified accept to sendrawtransaction's "
            + "acceptance of the claim (zero-conf: the lock seen in the mempool through the backend).")
        return lines.joined(separator: "\n")
    }
}
