#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `kill -9` of the client or the provider at every persisted state a pay passes
/// through, then a restart on the same data directory (issue 9). The crash is injected by
/// the daemon itself (`PEERNODE_TEST_CRASH_AFTER`, see Sources/PeerNode/Daemon/CrashPoint.swift):
/// it SIGKILLs itself right after the state is durable and before acting on it, the one
/// instant an outside `kill -9` could not hit reliably.
enum CrashScenarios {
    /// The client's states a zero-conf regtest pay writes, in order (ClientSwapPhase);
    /// with cooperative claims (musig2, the default) `coop_requested` comes before the claim.
    static let clientStates = ["quoted", "accepted", "pay_started", "payment_in_flight", "lock_seen", "lock_verified",
                               "coop_requested", "claim_broadcast", "claim_confirmed", "completed"]
    /// The provider's states the same pay writes (ProviderSwapState.Kind): `coop_signed`
    /// when the client asks for a cooperative claim, `claim_observed` when it does not
    /// (`scriptPathFlow`). Its other states need another flow (below).
    static let providerStates = ["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast", "coop_signed",
                                 "claim_observed", "settled"]
    /// The provider's states a pay whose lock is never claimed writes: here the client
    /// refuses a lock 1,000 sat short (`PEERNODE_TEST_LOCK=short:1000`), the lock confirms
    /// and the provider refunds it after its timeout. Slower (the timeout is mined
    /// through), so not in the `crash` set. `lock_confirmed` is here because in a normal
    /// pay the claim races it: a zero-conf claim comes before the lock confirms, and a
    /// client waiting for one confirmation (`zero_conf=0`) claims from the same block the
    /// provider learns it from (tried: the crash point fired in 1 run of 4).
    static let refundStates = ["lock_confirmed", "refund_intent", "refund_broadcast", "refunded"]

    static let amountSat: Int64 = 25_000

    /// The daemon's crash point variable (`CrashPoint.environmentKey`).
    static let crashAfterKey = "PEERNODE_TEST_CRASH_AFTER"

    /// The shortest refund timeout a provider accepts on regtest is confirmations + 36 =
    /// 37 blocks; 3 more leave room for blocks mined between the accept and the payment
    /// (the provider locks only with 37 blocks left).
    static let shortTimeout = "htlc_timeout_blocks=40"

    /// One scenario per (role, state): the `crash` set, and the refund states by name.
    static var all: [Scenario] {
        clientStates.map { state in
            Scenario(name: "crash-client-\(state)", summary: "kill -9 of the client right after it stored \(state); restart",
                     group: .crash) { net, clock throws(Failure) in try run(net, clock, crashing: "client", state: state) }
        } + providerStates.map { state in
            Scenario(name: "crash-provider-\(state)", summary: "kill -9 of the provider right after it stored \(state); restart",
                     group: .crash) { net, clock throws(Failure) in
                try run(net, clock, crashing: "provider", state: state, flow: state == "claim_observed" ? scriptPathFlow : CrashFlow())
            }
        } + refundStates.map { state in
            Scenario(name: "crash-provider-\(state)", summary: "kill -9 of the provider right after it stored \(state) "
                         + "(its short lock refused, so it refunds); restart", group: .other) { net, clock throws(Failure) in
                try run(net, clock, crashing: "provider", state: state, flow: refundFlow)
            }
        }
    }

    /// A client with cooperative claims off: the provider learns the preimage from the
    /// script-path claim (push or chain) and writes `claim_observed`; with `musig2` on it
    /// learns it from the cooperative request and writes `coop_signed` instead
    /// (CoopScenarios crash those states).
    static let scriptPathFlow = CrashFlow(config: ["client": ["musig2=0"]])

    /// A provider that locks 1,000 sat short and has the shortest refund timeout: the
    /// client refuses the lock, and the provider takes its lock back after the timeout.
    static let refundFlow = CrashFlow(config: ["provA": [shortTimeout]],
                                      providerEnvironment: ["PEERNODE_TEST_LOCK": "short:\(AdversaryScenarios.shortfallSat)"],
                                      blocksAfterPay: 80, endStates: ["client": ["failed"], "provider": ["refunded"]])

    static func run(_ net: Testnet, _ clock: StageClock, crashing role: String, state: String,
                    flow: CrashFlow = CrashFlow()) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                            config: flow.config)
        let provider = providers[0]
        let victim = role == "client" ? client : provider
        let point = "\(role):\(state)"

        if !flow.providerEnvironment.isEmpty && victim !== provider {
            try clock.stage("restart \(provider.name) with \(describe(flow.providerEnvironment))") { () throws(Failure) in
                clock.note(try provider.restart(environment: flow.providerEnvironment))
            }
        }
        try clock.stage("restart \(victim.name) with the crash point \(point) armed") { () throws(Failure) in
            clock.note(try arm(victim, point, environment: victim === provider ? flow.providerEnvironment : [:]))
        }
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total

        _ = try net.hub.rpc.call("hub_automine", [1])
        defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
        let pay = try BackgroundCommand(net, node: client, ["pay", carol.name, String(amountSat)], name: "pay")
        defer { pay.stop() }
        let death = try clock.stage("pay carol \(formatSats(amountSat)); wait for \(victim.name) to die at \(state)") {
            () throws(Failure) -> String in
            var minedAfterPay = 0
            let ended = try waitForCrash(victim, at: point, during: pay) { () throws(Failure) -> Bool in
                // A state written only once the refund timeout passed: the blocks come quicker than automine's.
                guard minedAfterPay < flow.blocksAfterPay else { return false }
                try net.hub.mine(1)
                minedAfterPay += 1
                usleep(200_000)
                return true
            }
            guard let ended else {
                throw Failure("`pay` ended (\(pay.outcome)) and \(victim.name) never reached \(point)"
                    + (flow.blocksAfterPay > 0 ? " (\(minedAfterPay) block(s) mined after it)" : ""))
            }
            clock.note("\(victim.name) ended: \(ended)")
            return ended
        }
        let reached = victim.logContains("crash point \(point) reached")
        var blocks = 0
        var whileDown: [Check] = []
        if flow.staysDown {
            _ = try? net.hub.rpc.call("hub_automine", [0])
            whileDown = try clock.stage("with \(victim.name) down, mine until the others' swaps are final and no HTLC is held") {
                () throws(Failure) -> [Check] in
                blocks += try settle(net)
                clock.note("mined \(blocks) block(s)")
                let down = try net.hub.rpc.balances()
                var others: [String] = []
                for node in net.nodes where node.isRunning && node !== carol {
                    others += try node.swapList().map { "\(node.name) \($0.role) \($0.state)" }
                }
                return [Check("with \(victim.name) down, the other swaps ended and its Lightning balance is back",
                              down.inFlightMsat == 0 && down.lightningMsat(victim.name) == before.lightningMsat(victim.name),
                              others.joined(separator: "; ") + "; \(victim.name) Lightning \(formatMsat(before.lightningMsat(victim.name)))"
                                  + " -> \(formatMsat(down.lightningMsat(victim.name))); in flight \(formatMsat(down.inFlightMsat))")]
            }
        }
        let victimEnvironment = victim === provider ? flow.providerEnvironment : [:]
        try clock.stage("restart \(victim.name) without the crash point, same data directory") { () throws(Failure) in
            try victim.launch(environment: victimEnvironment)
            try victim.waitReady()
        }
        let payOutcome = try clock.stage("wait for `pay` to end") { () throws(Failure) -> String in
            try pay.wait(timeout: 300)
            clock.note(pay.outcome)
            return pay.outcome
        }
        _ = try? net.hub.rpc.call("hub_automine", [0])
        blocks += try clock.stage("mine until every swap is final (refund timeouts included)") { () throws(Failure) -> Int in
            // A node back from a long absence gets blocks to act on (a late claim would show in the mempool).
            let extra = flow.staysDown ? 3 : 0
            if extra > 0 {
                try net.hub.mine(extra)
                usleep(1_500_000)
            }
            return try settle(net) + extra
        }
        clock.note("mined \(blocks) block(s); pay: \(payOutcome)")

        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().total - carolBefore
        let clientDrop = (before.lightningMsat("client") ?? 0) - (after.lightningMsat("client") ?? 0)
        let providerGain = (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let paidOut = received == amountSat && providerGain > 0 && clientDrop == providerGain + routing
        let rolledBack = received == 0 && clientDrop == 0 && providerGain == 0
        var checks = [
            Check("\(victim.name) died of SIGKILL at \(point)", death == "signal \(SIGKILL)" && reached,
                  "\(death); crash line in \(victim.name).log: \(reached)"),
            Check("either carol got exactly \(formatSats(amountSat)) and the provider's invoice settled, or nothing moved",
                  paidOut || rolledBack,
                  (paidOut ? "paid out: " : rolledBack ? "rolled back: " : "NEITHER: ")
                  + "carol +\(formatSats(received)); client Lightning -\(formatMsat(clientDrop)); "
                  + "\(provider.name) Lightning +\(formatMsat(providerGain)); routing \(formatMsat(routing))"),
        ]
        checks += whileDown
        if !flow.endStates.isEmpty {
            checks.append(try endStatesCheck([client, provider], expected: flow.endStates))
        }
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        // Issue 17: whatever the crash, no nonce signed two messages, one key path per lock.
        checks += try CoopAudit.checks(net, client: client, provider: provider)
        return checks
    }

    /// Each node's one swap ended in one of the states expected for its role; the detail
    /// names the states and the client's reason.
    static func endStatesCheck(_ nodes: [Node], expected: [String: Set<String>]) throws(Failure) -> Check {
        var passed = true
        var parts: [String] = []
        for node in nodes {
            let swaps = try node.swapList()
            for swap in swaps {
                let wanted = expected[swap.role]
                if let wanted, !wanted.contains(swap.state) { passed = false }
                parts.append("\(node.name) \(swap.role) \(swap.state)" + (swap.reason.map { " (\($0))" } ?? ""))
            }
            if swaps.count != 1 { passed = false; parts.append("\(node.name) holds \(swaps.count) swaps, not 1") }
        }
        let wanted = expected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.sorted().joined(separator: "|"))" }
        return Check("the swap ended as expected (\(wanted.joined(separator: ", ")))", passed, parts.joined(separator: "; "))
    }

    static func describe(_ environment: [String: String]) -> String {
        environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// Restarts `victim` with the crash point `point` (`<role>:<state>`) armed, besides
    /// `environment`; what the stop said. Fails at once when the daemon did not arm the
    /// point (it refuses one it does not know, and would then never fire).
    static func arm(_ victim: Node, _ point: String, environment: [String: String] = [:]) throws(Failure) -> String {
        let offset = victim.logLength
        let stopped = try victim.restart(environment: environment.merging([crashAfterKey: point]) { _, armed in armed })
        try waitArmed(victim, point, from: offset)
        return stopped
    }

    /// Waits for `victim`'s log, past its first `offset` bytes, to say the crash point
    /// `point` is armed; fails at once when the daemon refused it.
    static func waitArmed(_ victim: Node, _ point: String, from offset: Int = 0) throws(Failure) {
        let deadline = Date().addingTimeInterval(10)
        while !victim.logContains("crash point armed: SIGKILL right after \(point) is stored", from: offset) {
            guard Date() < deadline, !victim.logContains("crash point refused", from: offset) else {
                throw Failure("\(victim.name) did not arm the crash point \(point) (see \(victim.name).log: a point the daemon "
                              + "refuses never fires)")
            }
            usleep(50_000)
        }
    }

    /// Waits for `victim`, armed with `point`, to die while `command` runs; how it ended,
    /// or nil when the command ended and (after a few seconds' grace for the last writes)
    /// the point was never reached. `meanwhile` runs between looks once the command ended
    /// and says whether the flow is still at work (mining towards a refund); the grace
    /// starts when it is not. `logFrom` skips what the log held before: a daemon crashed
    /// before at the same point has the crash line already.
    static func waitForCrash(_ victim: Node, at point: String, during command: BackgroundCommand, logFrom offset: Int = 0,
                             timeout: TimeInterval = 120,
                             meanwhile: () throws(Failure) -> Bool = { false }) throws(Failure) -> String? {
        var quietSince: Date?
        return try victim.waitExit(timeout: timeout) { () throws(Failure) -> Bool in
            guard !command.isRunning else { return false }
            if try meanwhile() { return false }
            let since = quietSince ?? Date()
            quietSince = since
            return Date().timeIntervalSince(since) > 10 && !victim.logContains("crash point \(point) reached", from: offset)
        }
    }

    /// Mines a block at a time until every swap on every node is final, no HTLC is held
    /// and the mempool is empty; far enough for a refund (the swap timeout is a few
    /// hundred blocks at most on regtest). Returns the blocks mined.
    static func settle(_ net: Testnet, maxBlocks: Int = 400) throws(Failure) -> Int {
        var mined = 0
        var last = ""
        while mined <= maxBlocks {
            let hub = try net.hub.rpc.balances()
            let check = try CommonChecks.swapsFinal(net.nodes, hub: hub)
            if check.passed { return mined }
            last = check.detail
            // Quick steps while the engines are busy; bigger ones once only time is missing.
            let step = mined < 20 ? 1 : 6
            try net.hub.mine(step)
            mined += step
            usleep(mined < 20 ? 400_000 : 250_000)
        }
        throw Failure("not every swap ended within \(maxBlocks) blocks: \(last)")
    }
}

/// One swap as `peernode swaps` and `peernode swap show` tell it.
typealias SwapSummary = (id: String, role: String, state: String, reason: String?)

/// How a crash scenario differs from a plain pay between honest nodes that come back at once.
struct CrashFlow {
    /// Extra config lines by node name (`zero_conf=0`, a short `htlc_timeout_blocks`).
    var config: [String: [String]] = [:]
    /// Added to the provider daemon's environment at every start (a `PEERNODE_TEST_LOCK` fault).
    var providerEnvironment: [String: String] = [:]
    /// For a state written only after the refund timeout: once `pay` ended, mine up to this
    /// many blocks (quicker than automine) while waiting for the crash.
    var blocksAfterPay = 0
    /// The crashed node stays down until every other swap is final and no HTLC is held (a
    /// client that never claims), and is restarted only then.
    var staysDown = false
    /// The states each role's swap must end in (`"client": ["failed"]`); empty: not checked.
    var endStates: [String: Set<String>] = [:]
}

/// A `peernode` command run in the background (the `pay` a crash interrupts), its output in
/// files of the run directory; stopped by the supervisor if it outlives the scenario.
final class BackgroundCommand {
    private let process = Process()
    private let supervisor: Supervisor
    /// Its stdout (the JSON result) and stderr (the progress lines as they come).
    let outPath: String
    let errPath: String

    init(_ net: Testnet, node: Node, _ arguments: [String], name: String) throws(Failure) {
        supervisor = net.supervisor
        outPath = net.supervisor.runDirectory + "/\(node.name)-\(name).out"
        errPath = net.supervisor.runDirectory + "/\(node.name)-\(name).err"
        guard FileManager.default.createFile(atPath: outPath, contents: nil), FileManager.default.createFile(atPath: errPath, contents: nil),
              let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw Failure("cannot create \(outPath) or \(errPath)")
        }
        defer { try? out.close(); try? err.close() }
        process.executableURL = URL(fileURLWithPath: net.binaries.node)
        process.arguments = Node.confirmed(arguments) + ["--datadir", node.datadir, "--json"]
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try supervisor.launch(process, name: "peernode \(name) (\(node.name))")
    }

    var isRunning: Bool { process.isRunning }

    /// Ended by itself with exit code 0.
    var succeeded: Bool { !process.isRunning && process.terminationReason == .exit && process.terminationStatus == 0 }

    /// The JSON result it printed, once it has ended (nil when it printed none).
    var result: [String: Any]? {
        guard !process.isRunning, let text = try? String(contentsOfFile: outPath, encoding: .utf8) else { return nil }
        return JSON.parse(text) as? [String: Any]
    }

    /// How it ended, with the last thing it said.
    var outcome: String {
        if process.isRunning { return "still running" }
        let said = ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { !$0.hasPrefix("{") }.suffix(2).joined(separator: " | ")
        let result = ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return "\(Supervisor.describe(process))" + (said.isEmpty ? "" : ": \(said)") + (result.isEmpty ? "" : "; result \(result.prefix(200))")
    }

    func wait(timeout: TimeInterval) throws(Failure) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { throw Failure("`pay` did not end within \(Int(timeout)) s") }
            usleep(100_000)
        }
        process.waitUntilExit()
        supervisor.release(process)
    }

    func stop() {
        if process.isRunning { supervisor.stop(process) } else { supervisor.release(process) }
    }
}

extension Node {
    /// Waits until the daemon exits by itself; how it ended, or nil when `giveUp`
    /// (asked between looks) said to stop waiting while it still runs.
    func waitExit(timeout: TimeInterval, giveUp: () throws(Failure) -> Bool) throws(Failure) -> String? {
        guard let process else { throw Failure("\(name) is not running") }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { throw Failure("\(name) did not die within \(Int(timeout)) s") }
            if try giveUp() { return nil }
            usleep(50_000)
        }
        process.waitUntilExit()
        return Supervisor.describe(process)
    }

    /// Stops the daemon and starts it again on the same data directory and peer port (the
    /// contacts that saved it still find it) with `environment` added; how the old one ended.
    func restart(environment: [String: String]) throws(Failure) -> String {
        try pinListenAddress()
        let stopped = stop()
        try launch(environment: environment)
        try waitReady()
        return stopped
    }

    /// The node's swaps (`peernode swaps`), each with its state and, when its last event
    /// gives one, the reason it ended.
    func swapList() throws(Failure) -> [SwapSummary] {
        try JSON.array(try must(["swaps"])["swaps"]).map { (entry) throws(Failure) -> SwapSummary in
            let record = JSON.object(entry) ?? [:]
            let id = JSON.string(record["id"]) ?? "?"
            let reason = JSON.string(JSON.object(try swapEvents(id).last?["outcome"])?["reason"])
            return (id, JSON.string(record["role"]) ?? "?", JSON.string(record["state"]) ?? "?", reason)
        }
    }

    /// The data of each event of a swap, in order (`peernode swap show`).
    func swapEvents(_ id: String) throws(Failure) -> [[String: Any]] {
        JSON.array(try must(["swap", "show", id])["events"]).map { JSON.object(JSON.object($0)?["data"]) ?? [:] }
    }

    /// Whether the daemon's log holds `text` past its first `offset` bytes (a restarted
    /// daemon appends to the same log).
    func logContains(_ text: String, from offset: Int = 0) -> Bool {
        let log = (try? Data(contentsOf: URL(fileURLWithPath: logPath))) ?? Data()
        return String(decoding: log.dropFirst(offset), as: UTF8.self).contains(text)
    }

    /// The log's size in bytes now: where the next lines will start.
    var logLength: Int { ((try? FileManager.default.attributesOfItem(atPath: logPath))?[.size] as? NSNumber)?.intValue ?? 0 }

    private var logPath: String { datadir + "/../\(name).log" }
}
