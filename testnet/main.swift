#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation

/// `peernode-testnet`: starts the regtest hub and `peernode` daemons on loopback, runs the
/// demo or the scenarios against them, prints what happens, and stops every process it
/// started, also on failure and on Ctrl-C. Exit code 0 only when every check passed.
let usage = """
    usage: peernode-testnet demo [--chain bitcoind|electrum] [--bin <dir>]
           peernode-testnet scenarios [--all | crash | electrum | load] [<name> ...] [--jobs N] [--bin <dir>]
           peernode-testnet scenarios --list
           peernode-testnet bench [--swaps N] [--concurrent N] [--plain-lnd] [--chain electrum] [--coop] [--submarine] [--bin <dir>]
           peernode-testnet bench-floods [--seconds N] [--bin <dir>]
           peernode-testnet soak --minutes <n> [--seed <s>] [--bin <dir>]

    demo        the README's demo: a client with 500,000 sat on Lightning pays carol, who
                takes only on-chain bitcoin, 20,000 sat through the cheaper of two providers
                among its 5 contacts; checks what carol received and what the client paid;
                --chain electrum: every node reads the chain from a real ElectrumX
    scenarios   the quick scenarios (a fast subset); `crash` the kill -9 set; `electrum` the
                Electrum set; `load` the load set too long for CI; --all runs every one but the
                Electrum and load sets' (as CI does; with `electrum load` too, every one); names
                pick some; --jobs N runs N at once, each in a process of its own (the load
                scenarios alone)
    bench       issue 9's benchmark (build in release): accept -> claim latency over N
                sequential swaps (200), swaps/s with N pays at once through one provider (50),
                memory per in-flight swap; beside the hub's primitives timed in the same run;
                the nodes reach LND REST over TLS, or plain HTTP with --plain-lnd (to compare);
                --chain electrum: only the N sequential swaps (say --swaps 40), with every node
                on Bitcoin Core and then on a real ElectrumX, in the same run; --coop: the same
                with every claim through the script path (musig2=0), then through the key path;
                --submarine: issue 16's figures, N sequential on-chain -> Lightning swaps (lock
                confirmed -> invoice paid -> claim in the mempool) and N pays at once with both
                directions mixed against reverse alone
    bench-floods  issue 22's figures (build in release): an honest contact's connect-and-quote
                latency p50/p99 during each flood of the hostile kit against a quiet run, N
                seconds each (10); the provider's CPU per handshake against the responder's
                cryptography
    soak        random payments and swaps with random kill -9 on one network for <n>
                minutes; prints swaps done, crashes injected and funds lost (must be 0)

    --bin <dir> where peernode and peernode-regtest are (default: next to this program)

    Each run has its own directory under /tmp (data directories, one log per process),
    printed at the start and kept afterwards. Needs PEERNODE_KERNEL_LIB (set by `make`).
    exit codes: 0 every check passed, 1 a check or a step failed, 2 usage error
    """

func fail(usage message: String) -> Never {
    Console.err("peernode-testnet: \(message)\n\n\(usage)")
    exit(2)
}

var words = Array(CommandLine.arguments.dropFirst())
var binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
if let index = words.firstIndex(of: "--bin") {
    guard index + 1 < words.count else { fail(usage: "--bin needs a directory") }
    binDirectory = words[index + 1]
    words.removeSubrange(index...index + 1)
}
if words.isEmpty || words.contains("--help") || words.contains("-h") || words == ["help"] {
    Console.out(usage)
    exit(words.isEmpty ? 2 : 0)
}
let command = words.removeFirst()

var scenarioJobs = 1
if let index = words.firstIndex(of: "--jobs") {
    guard index + 1 < words.count, let jobs = Int(words[index + 1]), (1...8).contains(jobs) else {
        fail(usage: "--jobs needs a number from 1 to 8")
    }
    scenarioJobs = jobs
    words.removeSubrange(index...index + 1)
}

let selection: [Scenario]
var benchOptions = BenchOptions()
var floodBenchSeconds = 10
var demoOnElectrum = false
var soakOptions: SoakOptions?
switch command {
case "demo":
    guard words.isEmpty || words == ["--chain", "electrum"] || words == ["--chain", "bitcoind"] else {
        fail(usage: "demo takes only --chain bitcoind|electrum, got \(words.joined(separator: " "))")
    }
    demoOnElectrum = words == ["--chain", "electrum"]
    selection = []
case "scenarios":
    if words == ["--list"] {
        for scenario in Scenario.all {
            let set = switch scenario.group {
            case .quick: ""
            case .crash: " (crash, --all)"
            case .electrum: " (electrum)"
            case .load: " (load)"
            case .other: " (--all)"
            }
            Console.out("\(scenario.name)\(set): \(scenario.summary)")
        }
        exit(0)
    }
    let all = words.contains("--all")
    // `crash`, `electrum` and `load` name their sets, as words among the scenario names.
    let crashSet = words.contains("crash")
    let electrumSet = words.contains("electrum")
    let loadSet = words.contains("load")
    let names = words.filter { $0 != "--all" && $0 != "crash" && $0 != "electrum" && $0 != "load" }
    if let unknown = names.first(where: { name in !Scenario.all.contains { $0.name == name } }) {
        fail(usage: "no scenario named \(unknown); `peernode-testnet scenarios --list` lists them")
    }
    selection = Scenario.all.filter { scenario in
        if all && scenario.group != .electrum && scenario.group != .load { return true }
        if crashSet && scenario.group == .crash { return true }
        if electrumSet && scenario.group == .electrum { return true }
        if loadSet && scenario.group == .load { return true }
        if names.contains(scenario.name) { return true }
        return names.isEmpty && !crashSet && !electrumSet && !loadSet && scenario.quick
    }
case "bench":
    guard let options = BenchOptions.parse(words) else { fail(usage: "bench takes --swaps N, --concurrent N, --plain-lnd, --chain bitcoind|electrum, --coop and --submarine, got \(words.joined(separator: " "))") }
    benchOptions = options
    selection = []
case "bench-floods":
    if !words.isEmpty {
        guard words.count == 2, words[0] == "--seconds", let seconds = Int(words[1]), seconds > 0 else {
            fail(usage: "bench-floods takes --seconds N, got \(words.joined(separator: " "))")
        }
        floodBenchSeconds = seconds
    }
    selection = []
case "soak":
    selection = []
    do { soakOptions = try SoakOptions(parsing: words, defaultSeed: UInt64(Date().timeIntervalSince1970 * 1_000)) } catch {
        fail(usage: error.message)
    }
default:
    fail(usage: "unknown command \(command)")
}

guard let kernel = ProcessInfo.processInfo.environment["PEERNODE_KERNEL_LIB"], FileManager.default.fileExists(atPath: kernel) else {
    Console.err("peernode-testnet: PEERNODE_KERNEL_LIB does not name Bitcoin Core's kernel library; "
        + "run through `make demo` (which sets it after scripts/setup.sh) or export it")
    exit(1)
}

let binaries: Binaries
do {
    binaries = try Binaries(directory: binDirectory)
} catch {
    Console.err("peernode-testnet: \(error)")
    exit(1)
}

/// A short directory: the daemons' control sockets live in it and a unix socket path
/// must fit in 107 bytes.
func makeRunDirectory() -> String {
    var template = Array("/tmp/pnt-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        Console.err("peernode-testnet: cannot create a run directory in /tmp: \(String(cString: strerror(errno)))")
        exit(1)
    }
    return String(cString: made)
}

let runDirectory = makeRunDirectory()

/// Every supervisor of this run, so Ctrl-C can end whatever is running at that moment.
let live = LiveSupervisors()

let signalSources = live.stopOnInterrupt()

let run = RunContext(directory: runDirectory, binaries: binaries, live: live)
let code: Int32
switch command {
case "demo": code = runDemo(run, electrum: demoOnElectrum)
case "bench": code = runBench(run, benchOptions)
case "bench-floods": code = runFloodBench(run, seconds: floodBenchSeconds)
case "soak": code = soakOptions.map { runSoak($0, run) } ?? 2
default:
    code = scenarioJobs > 1 && selection.count > 1
        ? ScenarioScheduler(selection: selection, jobs: scenarioJobs, run: run, binDirectory: binDirectory).execute()
        : runScenarios(selection, run)
}
exit(live.interrupted ? 130 : code)

