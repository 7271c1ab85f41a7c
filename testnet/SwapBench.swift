#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `peernode-testnet bench`: issue 9's benchmark on the regtest hub with zero-conf, real
/// daemons driven through `peernode pay`: (a) accept -> claim broadcast latency over
/// sequential swaps, (b) swaps per second through one provider with many pays at once,
/// (c) memory per in-flight swap; beside the hub's raw primitives measured in the same run.
/// Meant for release builds (`make bench`).
struct BenchOptions {
    var swaps = 200
    var concurrent = 50
    /// The nodes reach the hub's LND REST in plain HTTP instead of TLS, to compare.
    var plainLND = false
    /// `--chain electrum`: the sequential swaps with every node on Bitcoin Core, then on a
    /// real ElectrumX, in the same run (ChainBench), instead of the whole benchmark.
    var electrum = false
    /// `--coop`: the sequential swaps claimed through the script path, then through the key
    /// path (CoopBench), instead of the whole benchmark.
    var coop = false
    /// `--submarine`: issue 16's figures (SubmarineBench) instead of the whole benchmark.
    var submarine = false

    /// `--swaps N --concurrent N [--plain-lnd] [--chain bitcoind|electrum] [--coop] [--submarine]`; nil on anything else.
    static func parse(_ words: [String]) -> BenchOptions? {
        var options = BenchOptions()
        var rest = words[...]
        while let word = rest.popFirst() {
            if word == "--plain-lnd" {
                options.plainLND = true
                continue
            }
            if word == "--coop" {
                options.coop = true
                continue
            }
            if word == "--submarine" {
                options.submarine = true
                continue
            }
            if word == "--chain" {
                switch rest.popFirst() {
                case "electrum": options.electrum = true
                case "bitcoind": options.electrum = false
                default: return nil
                }
                continue
            }
            guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { return nil }
            switch word {
            case "--swaps": options.swaps = value
            case "--concurrent": options.concurrent = value
            default: return nil
            }
        }
        return options
    }
}

/// Small numeric helpers of the benchmark.
enum Bench {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    static func milliseconds(_ seconds: Double) -> String { String(format: "%.0f", seconds * 1_000) }

    /// Nearest rank.
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// Columns padded to fit, the first left-aligned, the others right-aligned.
    static func table(_ rows: [[String]]) -> String {
        var widths: [Int] = []
        for row in rows {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        var lines: [String] = []
        for (number, row) in rows.enumerated() {
            lines.append(row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  "))
            if number == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        return lines.joined(separator: "\n")
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// What the benchmark measured.
struct BenchFigures {
    var primitives: HubPrimitives
    var timings: [SwapTiming] = []
    /// Runner's view minus the daemon's: the CLI process starting and reaching the daemon.
    var cliOverheads: [Double] = []
    var burstSeconds = 0.0
    var burstSwaps = 0
    var providerKiBPerSwap = 0.0
    var clientKiBPerSwap = 0.0
    var memoryDetail = ""
    /// CPU of each part from the first launch until every claim was out (the commands: whole life).
    var burstCPU = CPUShare(parts: [])
}

func runBench(_ run: RunContext, _ options: BenchOptions) -> Int32 {
    if options.electrum { return ChainBench.run(run, options) }
    if options.coop { return CoopBench.run(run, options) }
    if options.submarine { return SubmarineBench.run(run, options) }
    return Bench.onOneHub(run, headline: "peernode bench: swaps on the regtest hub with zero-conf, real daemons, `peernode pay`, "
                              + "LND REST over " + (options.plainLND ? "plain HTTP (--plain-lnd)" : "TLS"),
                          plainLND: options.plainLND) { net, clock throws(Failure) in
        let (figures, checks) = try SwapBench(net: net, clock: clock, options: options).run()
        return (checks, SwapBench.report(figures, options))
    }
}

extension Bench {
    /// A benchmark on one hub of its own: the headline, the body's measurement, its checks,
    /// its report, and every process stopped; 0 when every check passed.
    static func onOneHub(_ run: RunContext, headline: String, plainLND: Bool = false,
                         _ body: (Testnet, StageClock) throws(Failure) -> (checks: [Check], report: String)) -> Int32 {
        Console.out(headline)
        Console.out("run directory (data dirs and logs): \(run.directory)")
        Console.out("cores: \(ProcessInfo.processInfo.activeProcessorCount), load average at start: \(Bench.loadAverage())")
        let supervisor = Supervisor(runDirectory: run.directory)
        run.live.add(supervisor)
        let clock = StageClock()
        var passed = false
        do {
            let net = try clock.stage("start the regtest hub") { () throws(Failure) -> Testnet in
                let net = try Testnet(supervisor: supervisor, binaries: run.binaries)
                net.plainLND = plainLND
                return net
            }
            let (checks, report) = try body(net, clock)
            Console.out("")
            Console.out("checks:")
            for check in checks { Console.out("  " + check.line) }
            passed = checks.allSatisfy(\.passed)
            Console.out("")
            Console.out(report)
            Console.out("load average at the end: \(Bench.loadAverage())")
            Console.out(passed ? "bench: every check passed" : "bench FAILED: \(checks.filter { !$0.passed }.map(\.name).joined(separator: "; "))")
        } catch {
            Console.out("")
            Console.out("bench FAILED: \(error)")
        }
        teardown(supervisor, clock: clock, run)
        return passed ? 0 : 1
    }
}

struct SwapBench {
    let net: Testnet
    let clock: StageClock
    let options: BenchOptions

    static let primitiveRounds = 50

    func run() throws(Failure) -> (BenchFigures, [Check]) {
        let primitives = try clock.stage("the peer: hub primitives, \(Self.primitiveRounds) rounds each") {
            () throws(Failure) -> HubPrimitives in
            let measured = try HubPrimitives.measure(net, rounds: Self.primitiveRounds)
            clock.note("hold-invoice round trip p50 \(String(format: "%.2f", Bench.quantile(measured.holdRoundTrips, 0.5))) ms; "
                + "mempool accept p50 \(String(format: "%.2f", Bench.quantile(measured.mempoolAccepts, 0.5))) ms")
            return measured
        }
        var figures = BenchFigures(primitives: primitives)
        // The provider allows a client 20 new swaps an hour and 5 at once: the sequential
        // swaps take turns over enough clients, the burst has clients of its own.
        let sequentialClients = (options.swaps + LoadNetwork.swapsPerPeerPerHour - 1) / LoadNetwork.swapsPerPeerPerHour
        let burstClients = (options.concurrent + LoadNetwork.concurrentPerPeer - 1) / LoadNetwork.concurrentPerPeer
        let load = try LoadNetwork.setUp(net, clock, clients: sequentialClients + burstClients,
                                         clientSat: Int64(LoadNetwork.swapsPerPeerPerHour) * 60_000,
                                         providerCoins: options.concurrent + 10, coinSat: 400_000)
        let before = try net.hub.rpc.balances()
        let payeeBefore = try load.payee.walletBalance().total

        let sequential = try clock.stage("(a) \(options.swaps) swaps one after another, taking turns over "
            + "\(sequentialClients) clients, a block a second") { () throws(Failure) -> [PayOutcome] in
            try Scenario.withAutomine(net) { () throws(Failure) -> [PayOutcome] in
                try sequentialPays(Array(load.clients.prefix(sequentialClients)), payee: load.payee, figures: &figures)
            }
        }
        let burst = try clock.stage("(b, c) \(options.concurrent) pays at once over \(burstClients) other clients, "
            + "no block until every claim is out") { () throws(Failure) -> [PayOutcome] in
            try concurrentPays(Array(load.clients.dropFirst(sequentialClients)), load: load, figures: &figures)
        }
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let payeeGain = try load.payee.walletBalance().total - payeeBefore
        var checks = load.deliveryChecks(sequential + burst, before: before, after: after, payeeGain: payeeGain)
        checks.append(Check("every sequential swap timed from its own progress lines", figures.timings.count == options.swaps,
                            "\(figures.timings.count) of \(options.swaps)"))
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return (figures, checks)
    }

    /// Each pay starts once the previous one's claim is in the mempool (its progress line
    /// says so), so no two swaps overlap between accept and claim; a pay then waits for
    /// its claim's confirmation (the block a second) in the background.
    func sequentialPays(_ clients: [Node], payee: Node, figures: inout BenchFigures) throws(Failure) -> [PayOutcome] {
        var pays: [(String, Int64, BackgroundCommand, Double)] = []
        let amounts = LoadNetwork.amounts(count: options.swaps, from: 21_000)
        for (index, amount) in amounts.enumerated() {
            let name = "seq-\(index + 1)"
            let started = ContinuousClock.now
            let command = try BackgroundCommand(net, node: clients[index % clients.count], ["pay", payee.name, String(amount)],
                                                name: name)
            let deadline = Date().addingTimeInterval(60)
            while !PayOutcome.progressLines(command).contains(where: { JSON.string($0["stage"]) == "note"
                && (JSON.string($0["detail"]) ?? "").hasPrefix("claim ") && (JSON.string($0["detail"]) ?? "").hasSuffix(" broadcast") }) {
                if !command.isRunning {
                    throw Failure("\(name) ended before its claim was out: \(command.outcome)")
                }
                if Date() > deadline { throw Failure("\(name): no claim in the mempool within 60 s") }
                usleep(2_000)
            }
            pays.append((name, amount, command, Bench.seconds(since: started) * 1_000))
            if (index + 1) % 50 == 0 { clock.note("\(index + 1) claims out") }
        }
        for (_, _, command, _) in pays { try command.wait(timeout: 120) }
        var outcomes: [PayOutcome] = []
        for (name, amount, command, seenMilliseconds) in pays {
            let outcome = PayOutcome(name: name, amountSat: amount, command: command)
            outcomes.append(outcome)
            guard outcome.result != nil else { continue }
            let timing = try SwapTiming(outcome)
            figures.timings.append(timing)
            if let daemon = timing.commandToClaimMilliseconds { figures.cliOverheads.append(seenMilliseconds - Double(daemon)) }
        }
        return outcomes
    }

    /// Every pay launched at once with no block mined, so each swap stays in flight on its
    /// client (its claim unconfirmed) until every claim is in the mempool: the burst's
    /// duration is from the first launch until the mempool holds every lock and claim.
    /// Memory: each daemon's RSS when idle (before), against the clients' RSS with every
    /// swap in flight and the provider's peak (VmHWM, reset before) during the burst.
    private func concurrentPays(_ clients: [Node], load: LoadNetwork, figures: inout BenchFigures) throws(Failure) -> [PayOutcome] {
        try net.hub.mine(1)
        _ = try net.mine(until: "provA's wallet holding only confirmed coins", blocks: 3) { () throws(Failure) -> Bool in
            let balance = try load.provider.walletBalance()
            return balance.total == balance.confirmed
        }
        let idle = try clients.map { client throws(Failure) in try ProcessMemory.kibibytes("VmRSS", of: client) }
        let providerIdle = try ProcessMemory.kibibytes("VmRSS", of: load.provider)
        try ProcessMemory.resetPeak(of: load.provider)
        let mempoolBefore = try mempoolSize()
        guard mempoolBefore == 0 else { throw Failure("the mempool holds \(mempoolBefore) tx before the burst") }

        let count = options.concurrent
        let cpuBefore = try cpuParts(clients, load: load)
        let commandsBefore = try ProcessCPU.milliseconds(pid: getpid(), children: true)
        let burst = try PayBurst(net, clients: clients, payee: load.payee,
                                 amounts: LoadNetwork.amounts(count: count, from: 22_000), tag: "burst")
        defer { burst.stop() }
        clock.note("launched \(count) pays in \(Bench.milliseconds(burst.launchSeconds)) ms")
        let deadline = Date().addingTimeInterval(300)
        var size = 0
        while true {
            size = try mempoolSize()
            if size >= 2 * count { break }
            if Date() > deadline {
                throw Failure("after 300 s the mempool holds \(size) tx, not the \(2 * count) locks and claims")
            }
            if burst.running == 0 {
                throw Failure("every pay ended with \(size) tx in the mempool, not \(2 * count): "
                    + burst.outcomes().filter { $0.result == nil }.prefix(3).map { "\($0.name): \($0.said)" }.joined(separator: " | "))
            }
            usleep(2_000)
        }
        figures.burstSeconds = burst.elapsedSeconds
        figures.burstSwaps = count
        let cpuAfter = try cpuParts(clients, load: load)
        let inFlight = try clients.map { client throws(Failure) in try ProcessMemory.kibibytes("VmRSS", of: client) }
        let providerPeak = try ProcessMemory.kibibytes("VmHWM", of: load.provider)
        let clientGrowth = zip(inFlight, idle).reduce(Int64(0)) { $0 + $1.0 - $1.1 }
        figures.clientKiBPerSwap = Double(clientGrowth) / Double(count)
        figures.providerKiBPerSwap = Double(providerPeak - providerIdle) / Double(count)
        figures.memoryDetail = "provA RSS idle \(providerIdle) KiB, peak \(providerPeak) KiB; clients RSS idle "
            + "\(idle.map(String.init).joined(separator: "/")) KiB, with \(count) swaps in flight "
            + "\(inFlight.map(String.init).joined(separator: "/")) KiB"
        clock.note("\(size) tx in the mempool \(String(format: "%.2f", figures.burstSeconds)) s after the first launch; "
            + "\(burst.running) pays still waiting for their claim's confirmation")
        clock.note(figures.memoryDetail)
        try Scenario.withAutomine(net) { () throws(Failure) in try burst.waitAll(timeout: 300) }
        let commands = try ProcessCPU.milliseconds(pid: getpid(), children: true) - commandsBefore
        figures.burstCPU = CPUShare(parts: zip(cpuAfter, cpuBefore).map { ($0.0.name, $0.0.milliseconds - $0.1.milliseconds) }
            + [("`peernode pay` commands", commands)])
        clock.note("CPU per swap: " + figures.burstCPU.perSwap(count))
        return burst.outcomes()
    }

    /// CPU used so far by the provider, the burst's clients (together), the payee, the hub
    /// and this runner.
    private func cpuParts(_ clients: [Node], load: LoadNetwork) throws(Failure) -> [(name: String, milliseconds: Double)] {
        var clientsTotal = 0.0
        for client in clients { clientsTotal += try ProcessCPU.milliseconds(of: client) }
        return [("provA", try ProcessCPU.milliseconds(of: load.provider)), ("clients", clientsTotal),
                (load.payee.name, try ProcessCPU.milliseconds(of: load.payee)),
                ("hub", try ProcessCPU.milliseconds(pid: net.hub.process.processIdentifier)),
                ("runner", try ProcessCPU.milliseconds(pid: getpid()))]
    }

    private func mempoolSize() throws(Failure) -> Int {
        Int(JSON.int(JSON.object(try net.hub.rpc.call("getmempoolinfo"))?["size"]) ?? -1)
    }

    // MARK: the report

    static func report(_ figures: BenchFigures, _ options: BenchOptions) -> String {
        let latencies = figures.timings.compactMap(\.acceptToClaimMilliseconds).map(Double.init)
        let p50 = Bench.quantile(latencies, 0.5), p99 = Bench.quantile(latencies, 0.99)
        let peer = figures.primitives.swapMilliseconds
        let rate = figures.burstSeconds > 0 ? Double(figures.burstSwaps) / figures.burstSeconds : 0
        let peerRate = peer > 0 ? 1_000 / peer : 0
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        let nodeCPU = figures.burstCPU.milliseconds(of: ["provA", "clients", "`peernode pay` commands"])
            / Double(max(1, figures.burstSwaps))
        func ratio(_ value: Double, _ bound: Double) -> String { bound > 0 ? String(format: "%.1fx", value / bound) : "-" }
        var lines = [Bench.table([
            ["figure", "peernode", "peer (hub primitives)", "ratio", "goal", "met"],
            ["(a) accept -> claim in mempool, p50 (\(latencies.count) sequential)", ms(p50), ms(peer), ratio(p50, peer),
             "<= 100 ms", p50 <= 100 ? "yes" : "NO"],
            ["(a) accept -> claim in mempool, p99", ms(p99), "", ratio(p99, peer),
             "<= 3 x p50", p99 <= 3 * p50 ? "yes" : "NO"],
            ["(b) swaps/s through one provider (\(figures.burstSwaps) at once)", String(format: "%.1f", rate),
             String(format: "%.1f", peerRate), String(format: "%.0f %%", peerRate > 0 ? rate / peerRate * 100 : 0),
             ">= 20", rate >= 20 ? "yes" : "NO"],
            ["(b) CPU per swap in the burst, all processes", String(format: "%.1f ms", figures.burstCPU.total / Double(max(1, figures.burstSwaps))),
             "", "", "", ""],
            ["(b) the same, the node's processes (provider, clients, pay)", ms(nodeCPU), "", "", "<= 20 ms",
             nodeCPU <= 20 ? "yes" : "NO"],
            ["(c) memory per in-flight swap: provider (peak)", String(format: "%.0f KiB", figures.providerKiBPerSwap), "", "", "", ""],
            ["(c) memory per in-flight swap: client", String(format: "%.0f KiB", figures.clientKiBPerSwap), "", "", "", ""],
        ])]
        lines.append("")
        lines.append("where the time of a sequential swap goes (client daemon's monotonic clock, p50 / p99 ms):")
        var stages: [[String]] = [["stage", "p50", "p99"]]
        var previous = "command start (address from carol)"
        for (index, marker) in SwapTiming.markers.enumerated() {
            let deltas = figures.timings.compactMap { timing -> Double? in
                guard let end = timing.at[index] else { return nil }
                let start: Int64? = index == 0 ? 0 : timing.at[..<index].compactMap { $0 }.last
                return start.map { Double(end - $0) }
            }
            stages.append(["\(previous) -> \(marker.label)", String(format: "%.1f", Bench.quantile(deltas, 0.5)),
                           String(format: "%.1f", Bench.quantile(deltas, 0.99))])
            previous = marker.label
        }
        let total = figures.timings.compactMap(\.commandToClaimMilliseconds).map(Double.init)
        stages.append(["command start -> claim in mempool", String(format: "%.1f", Bench.quantile(total, 0.5)),
                       String(format: "%.1f", Bench.quantile(total, 0.99))])
        stages.append(["CLI start + control socket (runner's view - daemon's)", String(format: "%.1f", Bench.quantile(figures.cliOverheads, 0.5)),
                       String(format: "%.1f", Bench.quantile(figures.cliOverheads, 0.99))])
        lines.append(Bench.table(stages))
        lines.append("")
        lines.append("peer: hold-invoice round trip p50 \(ms(Bench.quantile(figures.primitives.holdRoundTrips, 0.5))) "
            + "(addholdinvoice, router/send, settle once held, SUCCEEDED) + 2 x mempool accept p50 "
            + "\(ms(Bench.quantile(figures.primitives.mempoolAccepts, 0.5))) (hub_fund unmined: sign + accept), "
            + "\(primitiveRounds) rounds each over loopback; its swaps/s is 1 / that, one at a time.")
        lines.append("(b): from the first `pay` launched to every lock and claim in the hub's mempool (polled every 2 ms).")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let perSwap = figures.burstCPU.total / Double(max(1, figures.burstSwaps))
        lines.append("    CPU per swap: \(figures.burstCPU.perSwap(figures.burstSwaps)); \(cores) cores at \(String(format: "%.1f", perSwap)) ms "
            + "a swap allow at most \(String(format: "%.0f", perSwap > 0 ? Double(cores) * 1_000 / perSwap : 0)) swaps/s on an idle machine.")
        lines.append("(c): \(figures.memoryDetail); per swap = growth / \(figures.burstSwaps).")
        return lines.joined(separator: "\n")
    }
}
