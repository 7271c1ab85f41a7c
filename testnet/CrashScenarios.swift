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
    /// The client's states a zero-conf regtest pay writes, in order (ClientSwapPhase).
    static let clientStates = ["quoted", "accepted", "pay_started", "payment_in_flight", "lock_seen", "lock_verified",
                               "claim_broadcast", "claim_confirmed", "completed"]
    /// The provider's states the same pay writes (ProviderSwapState.Kind). Not here:
    /// `lock_confirmed` (a zero-conf claim is seen before the lock confirms, so a normal
    /// pay never writes it: tried, the crash point never fired) and the refund states
    /// (only a failed swap writes them; `crash-client-accepted` and
    /// `crash-provider-invoice_created` end in `cancelled` after the timeout).
    static let providerStates = ["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast", "claim_observed",
                                 "settled"]

    static let amountSat: Int64 = 25_000

    /// One scenario per (role, state), in the `crash` set.
    static var all: [Scenario] {
        clientStates.map { state in
            Scenario(name: "crash-client-\(state)", summary: "kill -9 of the client right after it stored \(state); restart",
                     group: .crash) { net, clock throws(Failure) in try run(net, clock, crashing: "client", state: state) }
        } + providerStates.map { state in
            Scenario(name: "crash-provider-\(state)", summary: "kill -9 of the provider right after it stored \(state); restart",
                     group: .crash) { net, clock throws(Failure) in try run(net, clock, crashing: "provider", state: state) }
        }
    }

    static func run(_ net: Testnet, _ clock: StageClock, crashing role: String, state: String) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        let provider = providers[0]
        let victim = role == "client" ? client : provider
        let point = "\(role):\(state)"

        try clock.stage("restart \(victim.name) with the crash point \(point) armed") { () throws(Failure) in
            clock.note(try arm(victim, point))
        }
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total

        _ = try net.hub.rpc.call("hub_automine", [1])
        defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
        let pay = try BackgroundCommand(net, node: client, ["pay", carol.name, String(amountSat)], name: "pay")
        defer { pay.stop() }
        let death = try clock.stage("pay carol \(formatSats(amountSat)); wait for \(victim.name) to die at \(state)") {
            () throws(Failure) -> String in
            guard let ended = try waitForCrash(victim, at: point, during: pay) else {
                throw Failure("`pay` ended (\(pay.outcome)) and \(victim.name) never reached \(point)")
            }
            clock.note("\(victim.name) ended: \(ended)")
            return ended
        }
        let reached = victim.logContains("crash point \(point) reached")
        try clock.stage("restart \(victim.name) without the crash point, same data directory") { () throws(Failure) in
            try victim.start()
        }
        let payOutcome = try clock.stage("wait for `pay` to end") { () throws(Failure) -> String in
            try pay.wait(timeout: 300)
            clock.note(pay.outcome)
            return pay.outcome
        }
        _ = try? net.hub.rpc.call("hub_automine", [0])
        let blocks = try clock.stage("mine until every swap is final (refund timeouts included)") { () throws(Failure) -> Int in
            try settle(net, carol: carol, carolBefore: carolBefore)
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
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// Restarts `victim` with the crash point `point` (`<role>:<state>`) armed; what the
    /// stop said.
    static func arm(_ victim: Node, _ point: String) throws(Failure) -> String {
        // The same port after every restart: the client's contact entry names it.
        try victim.pinListenAddress()
        let stopped = victim.stop()
        try victim.launch(environment: ["PEERNODE_TEST_CRASH_AFTER": point])
        try victim.waitReady()
        return stopped
    }

    /// Waits for `victim`, armed with `point`, to die while `command` runs; how it ended,
    /// or nil when the command ended and (after a few seconds' grace for the last writes)
    /// the point was never reached. `logFrom` skips what the log held before: a daemon
    /// crashed before at the same point has the crash line already.
    static func waitForCrash(_ victim: Node, at point: String, during command: BackgroundCommand, logFrom offset: Int = 0,
                             timeout: TimeInterval = 120) throws(Failure) -> String? {
        var commandEnded: Date?
        return try victim.waitExit(timeout: timeout) { () -> Bool in
            guard !command.isRunning else { return false }
            let since = commandEnded ?? Date()
            commandEnded = since
            return Date().timeIntervalSince(since) > 10 && !victim.logContains("crash point \(point) reached", from: offset)
        }
    }

    /// Mines a block at a time until every swap on every node is final, no HTLC is held
    /// and the mempool is empty; far enough for a refund (the swap timeout is a few
    /// hundred blocks at most on regtest). Returns the blocks mined.
    static func settle(_ net: Testnet, carol: Node, carolBefore: Int64, maxBlocks: Int = 400) throws(Failure) -> Int {
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

/// A `peernode` command run in the background (the `pay` a crash interrupts), its output in
/// files of the run directory; stopped by the supervisor if it outlives the scenario.
final class BackgroundCommand {
    private let process = Process()
    private let supervisor: Supervisor
    private let outPath: String
    private let errPath: String

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
        process.arguments = arguments + ["--datadir", node.datadir, "--json"]
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try supervisor.launch(process, name: "peernode \(name) (\(node.name))")
    }

    var isRunning: Bool { process.isRunning }

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
    func waitExit(timeout: TimeInterval, giveUp: () -> Bool) throws(Failure) -> String? {
        guard let process else { throw Failure("\(name) is not running") }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { throw Failure("\(name) did not die within \(Int(timeout)) s") }
            if giveUp() { return nil }
            usleep(50_000)
        }
        process.waitUntilExit()
        return Supervisor.describe(process)
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
