import CSodium
import Glibc
import Transport

/// peernode's transport benchmarks (issue 3). Build and run in release mode:
///
///     swift build -c release --product peernode-bench && .build/release/peernode-bench
///
/// Arguments pick benchmarks (`handshake`, `throughput`, `fanout`, `router`, `lnd`, `discovery`, `json`); none runs
/// all. `lnd` starts the regtest hub in this process (it needs `PEERNODE_KERNEL_LIB`).
/// Every ratio compares two figures measured in this same run, on this machine.
@main
struct PeerNodeBench {
    static func main() async {
        guard sodium_init() >= 0 else {
            print("libsodium failed to initialise")
            exit(1)
        }
        let selected = Set(CommandLine.arguments.dropFirst())
        let known: Set<String> = ["handshake", "throughput", "fanout", "router", "lnd", "discovery", "json"]
        guard selected.isSubset(of: known) else {
            print("usage: peernode-bench [handshake] [throughput] [fanout] [router] [lnd] [discovery] [json]")
            exit(2)
        }
        func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }
        raiseOpenFileLimit(to: 8192)

        let alice = FanOutBench.identity(number: 0xA11C_E000)
        let bob = FanOutBench.identity(number: 0xB0B0_0000)
        var table = BenchTable()
        table.add(["benchmark", "peernode", "bound", "ratio", "goal", "met"])
        var allMet = true
        do {
            if wanted("handshake") {
                let result = try HandshakeBench(initiator: alice, responder: bob, iterations: 1000).run()
                let ratio = result.handshakesPerSecond / result.boundPerSecond
                let checkedRatio = result.withPubkyPerSecond / result.withPubkyBoundPerSecond
                // Issue 21: the in-process handshake stays at or above 86 % of its bound.
                allMet = allMet && ratio >= 0.86
                table.add(["1. XK handshakes/s (in memory)", fixed(result.handshakesPerSecond, 0),
                           fixed(result.boundPerSecond, 0), percent(ratio), ">= 86 %", ratio >= 0.86 ? "yes" : "NO"])
                table.add(["   + peernode/1 pubky check", fixed(result.withPubkyPerSecond, 0),
                           fixed(result.withPubkyBoundPerSecond, 0), percent(checkedRatio), "", ""])
            }
            let loop = try EventLoop()
            if wanted("throughput") {
                let result = try await ThroughputBench(sender: alice, receiver: bob, messages: 3000).run(loop: loop)
                let ratio = result.channelMBps / result.rawMBps
                let cpuRatio = result.channelMBPerCPUSecond / result.rawMBps
                // Issue 21: 70 % of the raw cipher per wall-second, 75 % per CPU-second.
                allMet = allMet && ratio >= 0.70 && cpuRatio >= 0.75
                table.add(["2. MB/s, \(result.messageBytes)-byte messages", fixed(result.channelMBps),
                           fixed(result.rawMBps), percent(ratio), ">= 70 %", ratio >= 0.70 ? "yes" : "NO"])
                table.add(["   MB per CPU-second (all threads)", fixed(result.channelMBPerCPUSecond), fixed(result.rawMBps),
                           percent(cpuRatio), ">= 75 %", cpuRatio >= 0.75 ? "yes" : "NO"])
                table.add(["   the same against cipher + loopback TCP's kernel CPU", fixed(result.channelMBPerCPUSecond),
                           fixed(result.rawPlusLoopbackMBPerCPUSecond),
                           percent(result.channelMBPerCPUSecond / result.rawPlusLoopbackMBPerCPUSecond), "", ""])
            }
            if wanted("fanout") {
                let result = try await FanOutBench(nodes: 1000, concurrency: 50).run(loop: loop)
                let met = result.totalSeconds <= 1.0
                allMet = allMet && met
                table.add(["3. 1,000 nodes: total wall time", fixed(result.totalSeconds * 1000, 0) + " ms", "",
                           "", "<= 1000 ms", met ? "yes" : "NO"])
                table.add(["   per exchange p50 / p99 / max", fixed(result.p50Milliseconds, 2) + " ms",
                           fixed(result.p99Milliseconds, 2) + " ms", fixed(result.maxMilliseconds, 2) + " ms", "", ""])
            }
            if wanted("router") {
                let result = try await RouterBench(nodes: 1000, concurrency: 64, sweepWidths: [32, 128]).run(loop: loop)
                // Report first: `&&` would skip the rows once an earlier goal was missed.
                let met = RouterBench.report(result, into: &table)
                allMet = allMet && met
            }
            if wanted("lnd") {
                let result = try await LNDConnectBench(rounds: lndRounds).run(loop: loop)
                LNDConnectBench.report(result, into: &table)
            }
            if wanted("discovery") {
                let result = try await DiscoveryBench(nodes: 1000, width: 64).run(loop: loop)
                DiscoveryBench.report(result, into: &table)
            }
            if wanted("json") {
                JSONBench.report(try JSONBench(rounds: 2_000).run(), into: &table)
            }
            await loop.shutdown()
        } catch {
            print("benchmark failed: \(error)")
            exit(1)
        }
        print(table.render())
        print("")
        print("1: Noise_XK_25519_ChaChaPoly_BLAKE2b, both sides in one process, best of 3 rounds of 1000;")
        print("   bound = 2 x crypto_box_keypair + 6 x crypto_scalarmult per handshake (+ the pubky")
        print("   check's crypto_core_ed25519_is_valid_point + crypto_sign_ed25519_pk_to_curve25519).")
        print("2: SecureChannel over loopback TCP on one event loop, 3000 messages, best of 2;")
        print("   bound = crypto_aead_chacha20poly1305_ietf encrypt + decrypt of the same messages;")
        print("   cipher + loopback TCP adds the CPU of writing and reading the same frames over a")
        print("   loopback TCP connection on one thread, no cryptography (LoopbackFloor): the kernel's part.")
        print("3: 1,000 identities, one PeerServer + PeerListener (own port) each, one client dialling")
        print("   each with PeerDialer (TCP + handshake), one ~\(FanOutBench.offerRequest(id: "offer-0000").count)-byte request and reply, 50 at a time.")
        if wanted("router") { RouterBench.printNotes() }
        if wanted("lnd") { LNDConnectBench.printNotes(rounds: lndRounds) }
        if wanted("discovery") { DiscoveryBench.printNotes() }
        if wanted("json") { JSONBench.printNotes() }
        // 3 (not 1) when it ran but missed a goal: `make bench` reports that and goes on.
        exit(allMet ? 0 : 3)
    }

    static let lndRounds = 300

    /// 1,000 listeners plus their connections need more descriptors than the usual 1024.
    static func raiseOpenFileLimit(to wanted: rlim_t) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
