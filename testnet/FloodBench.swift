#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `peernode-testnet bench-floods`: issue 22's figures, all from one run against one
/// provider daemon with the real per-host budgets.
///
/// - An honest contact's connect-and-quote latency (TCP connect from 127.0.0.1, handshake,
///   OfferRequest, QuoteRequest; `peernode-adversary --attack probe`), p50 and p99, with
///   nothing else running, then during each flood of `FloodScenarios`.
/// - The daemon's CPU per handshake (from /proc/<pid>/stat over a flood of complete
///   handshakes) against the responder's own cryptography for one handshake, timed in
///   the kit's process in the same run.
///
/// Meant for release builds (`make bench`); a debug build gives larger, still comparable,
/// numbers.
struct FloodBench {
    let net: Testnet
    let clock: StageClock
    let seconds: Int

    /// One row of the latency table.
    struct Row {
        let name: String
        let probes: Int64
        let failures: Int64
        let p50: Int64
        let p99: Int64
        let flood: String
    }

    /// The floods, as the scenarios run them.
    static let floods: [(name: String, attack: String, extra: [String])] = [
        ("slot churn, 300 conns, 1 host", "slot-churn", ["--sources", FloodScenarios.oneHost, "--connections", "300"]),
        ("256 holders, 1 host", "slot-holders", ["--sources", FloodScenarios.oneHost, "--connections", "256"]),
        ("256 holders, 20 ids, 20 /24s", "slot-holders",
         ["--sources", FloodScenarios.hosts(20), "--connections", "256", "--identities", "20"]),
        ("quote flood, 1 id, 32 in flight", "quote-flood", ["--sources", FloodScenarios.oneHost, "--count", "1000000"]),
        ("push flood, 4 conns", "push-flood", ["--sources", FloodScenarios.hosts(4), "--connections", "4"]),
        ("address flood, 4 workers", "address-flood", ["--sources", FloodScenarios.hosts(4), "--connections", "4"]),
    ]

    func run() throws(Failure) -> (rows: [Row], handshake: String) {
        let provider = try clock.stage("create and start provA (provider, real peer budgets), fund it") { () throws(Failure) -> Node in
            var spec = NodeSpec(name: "provA", provider: true, baseFeeSat: 500, feePPM: 2_000)
            spec.realPeerBudgets = true
            let nodes = try net.add([spec])
            try net.start(nodes)
            try net.fund(nodes, sats: 2_000_000)
            return nodes[0]
        }
        let kit = try HostileKit(net, lightningSat: 0)
        var rows: [Row] = []
        rows.append(try probe(kit, provider, label: "quiet", flood: "nothing else"))
        for flood in Self.floods {
            let process = try kit.start(flood.attack, against: provider, amountSat: FloodScenarios.amountSat,
                                        extra: flood.extra + ["--seconds", String(seconds + 4)], label: "bench-" + flood.attack)
            usleep(2_000_000)
            let row = try probe(kit, provider, label: flood.name, flood: flood.attack)
            let outcome = try process.wait(timeout: TimeInterval(seconds + 60))
            clock.note("\(flood.name): \(outcome.line.prefix(400))")
            rows.append(row)
            usleep(1_000_000)
        }
        return (rows, try handshakeCost(kit, provider))
    }

    /// The probe for `seconds`, from 127.0.0.1.
    private func probe(_ kit: HostileKit, _ provider: Node, label: String, flood: String) throws(Failure) -> Row {
        try clock.stage("connect-and-quote probes for \(seconds) s: \(label)") { () throws(Failure) -> Row in
            let process = try kit.start("probe", against: provider, amountSat: FloodScenarios.amountSat,
                                        extra: ["--seconds", String(seconds), "--interval-ms", "100"], label: "probe")
            let outcome = try process.wait(timeout: TimeInterval(seconds + 60))
            guard outcome.status == 0 else { throw Failure("the probe could not run: \(outcome.line)") }
            clock.note(outcome.line)
            return Row(name: label, probes: outcome.int("probes") ?? 0, failures: outcome.int("probe_failures") ?? 0,
                       p50: outcome.int("p50_us") ?? 0, p99: outcome.int("p99_us") ?? 0, flood: flood)
        }
    }

    /// Complete handshakes for `seconds` from 16 hosts in 16 /24s (under every per-host
    /// budget); provA's CPU over them, per handshake, beside the responder's bound.
    private func handshakeCost(_ kit: HostileKit, _ provider: Node) throws(Failure) -> String {
        try clock.stage("handshake flood for \(seconds) s: provA's CPU per handshake") { () throws(Failure) -> String in
            let before = try ProcessCPU.milliseconds(of: provider)
            let process = try kit.start("handshake-flood", against: provider, amountSat: FloodScenarios.amountSat,
                                        extra: ["--sources", FloodScenarios.hosts(16), "--connections", "8",
                                                "--seconds", String(seconds)])
            let outcome = try process.wait(timeout: TimeInterval(seconds + 60))
            let after = try ProcessCPU.milliseconds(of: provider)
            clock.note(outcome.line)
            let handshakes = outcome.int("handshakes") ?? 0
            guard handshakes > 0, let bound = outcome.int("responder_bound_ns") else {
                throw Failure("the handshake flood completed no handshake: \(outcome.line)")
            }
            let perHandshake = (after - before) * 1_000 / Double(handshakes)
            let boundMicros = Double(bound) / 1_000
            // The flood's own clock: in-flight dials finish after its timer.
            let elapsed = Double(max(outcome.int("elapsed_ms") ?? Int64(seconds * 1_000), 1)) / 1_000
            let ratio = perHandshake / max(boundMicros, 1)
            // Issue 21's goal for a daemon's inbound handshakes: at most 1.5 times the
            // responder's own cryptography.
            return String(format: "%lld handshakes in %.1f s (%.0f/s); provA CPU %.0f ms: %.0f µs per handshake; "
                          + "responder's cryptography %.0f µs (ratio %.1f; goal <= 1.5: %@)",
                          handshakes, elapsed, Double(handshakes) / elapsed, after - before, perHandshake,
                          boundMicros, ratio, ratio <= 1.5 ? "met" : "NOT met")
        }
    }

    static func report(_ rows: [Row], handshake: String) -> String {
        let quiet = rows.first
        var table = [["honest connect-and-quote", "probes", "failed", "p50 ms", "p99 ms", "p50 vs quiet"]]
        for row in rows {
            let ratio = quiet.map { $0.p50 > 0 ? String(format: "%.1fx", Double(row.p50) / Double($0.p50)) : "-" } ?? "-"
            table.append([row.name, String(row.probes), String(row.failures), String(format: "%.1f", Double(row.p50) / 1_000),
                          String(format: "%.1f", Double(row.p99) / 1_000), ratio])
        }
        return Bench.table(table) + "\n\nhandshakes: " + handshake
    }
}

func runFloodBench(_ run: RunContext, seconds: Int) -> Int32 {
    Console.out("peernode bench-floods: an honest contact's connect-and-quote latency during each flood, against a quiet run;")
    Console.out("the provider's CPU per handshake against the responder's cryptography (issue 22)")
    Console.out("run directory (data dirs and logs): \(run.directory)")
    Console.out("cores: \(ProcessInfo.processInfo.activeProcessorCount), load average at start: \(Bench.loadAverage())")
    let supervisor = Supervisor(runDirectory: run.directory)
    run.live.add(supervisor)
    let clock = StageClock()
    var code: Int32 = 1
    do {
        let net = try clock.stage("start the regtest hub") { () throws(Failure) -> Testnet in
            try Testnet(supervisor: supervisor, binaries: run.binaries)
        }
        let (rows, handshake) = try FloodBench(net: net, clock: clock, seconds: seconds).run()
        Console.out("")
        Console.out(FloodBench.report(rows, handshake: handshake))
        Console.out("load average at the end: \(Bench.loadAverage())")
        // Figures, not checks: the run fails only when a probe or a flood could not run.
        code = rows.allSatisfy { $0.probes > 0 } ? 0 : 1
        if code != 0 { Console.out("bench-floods FAILED: a probe run had no successful probe") }
    } catch {
        Console.out("bench-floods FAILED: \(error)")
    }
    teardown(supervisor, clock: clock, run)
    return code
}
