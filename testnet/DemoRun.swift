/// What a run shares: its directory, the executables, and the supervisors Ctrl-C stops.
struct RunContext {
    let directory: String
    let binaries: Binaries
    let live: LiveSupervisors
}

/// Starts the hub and runs the demo; prints the checks; tears down. With `electrum`
/// (`demo --chain electrum`), every node reads the chain from a real ElectrumX over the hub.
func runDemo(_ run: RunContext, electrum: Bool = false) -> Int32 {
    Console.out("peernode demo: pay an on-chain-only contact from Lightning funds, then a Lightning-only contact from savings, through providers among the contacts")
    Console.out("run directory (data dirs and logs): \(run.directory)")
    let supervisor = Supervisor(runDirectory: run.directory)
    run.live.add(supervisor)
    let clock = StageClock()
    var passed = false
    do {
        let net = try clock.stage("start the regtest hub (peernode-regtest)") { () throws(Failure) -> Testnet in
            let net = try Testnet(supervisor: supervisor, binaries: run.binaries, hubArguments: ["--pkarr-relays", "2"])
            clock.note("Bitcoin Core JSON-RPC on 127.0.0.1:\(net.hub.rpc.port), height \(try net.hub.rpc.balances().height), "
                + "fee estimate \(Testnet.feeRateSatPerKvB / 1_000) sat/vB; pkarr relays "
                + net.hub.pkarrRelays.joined(separator: ", "))
            return net
        }
        var demo = Demo(net: net, clock: clock)
        if electrum {
            let server = try clock.stage("start ElectrumX over the hub (--chain electrum)") { () throws(Failure) -> ElectrumX in
                let server = try ElectrumX.start(net)
                _ = try server.connect()
                clock.note("ElectrumX on 127.0.0.1:\(server.port); every node gets chain_backend=electrum")
                return server
            }
            demo.chainConfig = server.nodeConfig(trusted: true)
        }
        let checks = try demo.run()
        Console.out("")
        Console.out("checks:")
        for check in checks { Console.out("  " + check.line) }
        passed = checks.allSatisfy(\.passed)
        Console.out(passed ? "demo: every check passed" : "demo FAILED: \(checks.filter { !$0.passed }.map(\.name).joined(separator: "; "))")
    } catch {
        Console.out("")
        Console.out("demo FAILED: \(error)")
    }
    teardown(supervisor, clock: clock, run)
    return passed ? 0 : 1
}

func teardown(_ supervisor: Supervisor, clock: StageClock, _ run: RunContext) {
    Console.out("[\(clock.stamp)] stop every process this run started")
    for outcome in supervisor.stopAll() { clock.note(outcome) }
    run.live.remove(supervisor)
    Console.out("logs: \(run.directory)")
}
