#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The daemon's lifecycle with a swap under way (issue 14): SIGINT to the client's daemon
/// while an attached `pay` waits for the lock to confirm. The daemon must not wait for the
/// swap: it detaches the `pay` (which prints the swap id and exits 5), keeps the swap in
/// its store and exits within 10 s; started again, it finishes the swap and the contact
/// gets exactly the amount.
enum LifecycleScenarios {
    static let amountSat: Int64 = 30_000

    static var all: [Scenario] {
        [Scenario(name: "sigint-during-pay", summary: "SIGINT to the client's daemon while `pay` waits for the lock; "
                      + "it exits within 10 s, the restarted daemon finishes the swap", group: .quick) { net, clock throws(Failure) in
            try sigintDuringPay(net, clock)
        }]
    }

    static func sigintDuringPay(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // zero_conf=0: the client waits for a confirmation of the lock, and nothing is mined
        // until the daemon is back, so the swap is certainly mid-way when the signal comes.
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                            config: ["client": ["zero_conf=0"]])
        let provider = providers[0]
        try client.pinListenAddress()
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total

        let pay = try BackgroundCommand(net, node: client, ["pay", carol.name, String(amountSat)], name: "pay")
        defer { pay.stop() }
        try clock.stage("pay carol \(formatSats(amountSat)); wait until the client saw the provider's lock") { () throws(Failure) in
            let deadline = Date().addingTimeInterval(60)
            // The heartbeat says where the swap waits (its state and the tip) while no event comes.
            while !(pay.progressContains("lock_seen") && pay.progressContains("\"stage\":\"waiting\"")) {
                guard pay.isRunning else { throw Failure("`pay` ended before the lock was seen: \(pay.outcome)") }
                guard Date() < deadline else { throw Failure("no lock_seen within 60 s: \(pay.outcome)") }
                usleep(100_000)
            }
        }
        guard let pid = client.process?.processIdentifier else { throw Failure("the client's daemon is not running") }
        let (ended, seconds) = try clock.stage("SIGINT to the client's daemon (pid \(pid)); wait for it to exit") {
            () throws(Failure) -> (String, Double) in
            let sent = Date()
            kill(pid, SIGINT)
            guard let ended = try client.waitExit(timeout: 30, giveUp: { false }) else { throw Failure("unreachable") }
            let seconds = Date().timeIntervalSince(sent)
            clock.note("\(ended) after \(String(format: "%.2f", seconds)) s")
            return (ended, seconds)
        }
        let detached = try clock.stage("wait for `pay` to say it let go of the swap") { () throws(Failure) -> [String: Any] in
            try pay.wait(timeout: 30)
            clock.note(pay.outcome)
            return JSON.object(pay.result?["error"]) ?? [:]
        }
        let swapID = JSON.string(detached["swap_id"]) ?? ""
        try clock.stage("start the client's daemon again, same data directory") { () throws(Failure) in
            try client.launch()
            try client.waitReady()
        }
        // Re-attach by a prefix of the id while blocks come: every step, then the end.
        let prefix = String(swapID.prefix(8))
        let interrupted = try clock.stage("`peernode swap watch \(prefix)`, then Ctrl-C (SIGINT) to it") { () throws(Failure) -> (Int32, [String: Any]) in
            try interruptWatch(net, client, prefix)
        }
        let watch = try clock.stage("`peernode swap watch \(prefix)` while a block is mined every second") { () throws(Failure) -> ToolResult in
            try Scenario.withAutomine(net) { () throws(Failure) -> ToolResult in
                let result = try client.cli(["swap", "watch", prefix], timeout: 120)
                clock.note("exit \(result.status): \(JSON.line(result.json ?? [:]).prefix(200))")
                return result
            }
        }
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        let listed = try client.cliText(["swaps"])
        let shown = try client.cliText(["swap", "show", prefix])
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().total - carolBefore
        let swaps = try client.swapList()
        var checks = [
            Check("the daemon exited 0 within 10 s of SIGINT", ended == "exit 0" && seconds < 10,
                  "\(ended) after \(String(format: "%.2f", seconds)) s"),
            Check("`pay` was detached: exit 5 naming the swap it let go of",
                  pay.outcome.hasPrefix("exit 5") && JSON.string(detached["code"]) == "detached" && !swapID.isEmpty
                      && (JSON.string(detached["message"]) ?? "").contains("peernode swap watch \(swapID)"),
                  pay.outcome),
            Check("the restarted daemon finished that swap", swaps.count == 1 && swaps.first?.id == swapID
                      && swaps.first?.state == "completed",
                  swaps.map { "\($0.id) \($0.state)" }.joined(separator: "; ")),
            Check("Ctrl-C of `swap watch` exits 5 saying the swap goes on and how to follow it",
                  interrupted.0 == 5 && JSON.string(interrupted.1["code"]) == "interrupted" && JSON.string(interrupted.1["swap_id"]) == swapID
                      && (JSON.string(interrupted.1["message"]) ?? "").contains("peernode swap watch \(swapID)"),
                  "exit \(interrupted.0): \(interrupted.1)"),
            Check("`swap watch <prefix>` followed the swap to its end",
                  watch.ok && JSON.string(watch.json?["state"]) == "completed" && JSON.string(watch.json?["swap_id"]) == swapID
                      && watch.stderr.contains("claim_confirmed"),
                  "exit \(watch.status): \(watch.failureText.prefix(300))"),
            Check("`swaps` shows kind, amount, state and fees; `swap show <prefix>` a timeline",
                  listed.stdout.contains(" pay ") && listed.stdout.contains("30,000 sat") && listed.stdout.contains("completed")
                      && shown.ok && shown.stdout.contains("timeline:") && shown.stdout.hasPrefix("swap:") && shown.stdout.contains(swapID),
                  listed.stdout + "\n" + shown.stdout),
            Check("carol got exactly \(formatSats(amountSat))", received == amountSat,
                  "carol +\(formatSats(received)); \(provider.name) Lightning "
                      + "\(formatMsat(before.lightningMsat(provider.name))) -> \(formatMsat(after.lightningMsat(provider.name)))"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }
}

extension LifecycleScenarios {
    /// Starts `swap watch <prefix> --json`, waits for its first line, sends it SIGINT; its
    /// exit code and the JSON error it printed.
    static func interruptWatch(_ net: Testnet, _ client: Node, _ prefix: String) throws(Failure) -> (Int32, [String: Any]) {
        let out = net.supervisor.runDirectory + "/client-watch.out"
        let err = net.supervisor.runDirectory + "/client-watch.err"
        guard FileManager.default.createFile(atPath: out, contents: nil), FileManager.default.createFile(atPath: err, contents: nil),
              let outHandle = FileHandle(forWritingAtPath: out), let errHandle = FileHandle(forWritingAtPath: err) else {
            throw Failure("cannot create \(out) or \(err)")
        }
        defer { try? outHandle.close(); try? errHandle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: net.binaries.node)
        process.arguments = ["swap", "watch", prefix, "--datadir", client.datadir, "--json"]
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try net.supervisor.launch(process, name: "peernode swap watch (client)")
        defer { net.supervisor.release(process) }
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").contains("swap_id") {
            guard process.isRunning, Date() < deadline else { throw Failure("`swap watch` printed no progress line within 30 s") }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGINT)
        let stop = Date().addingTimeInterval(10)
        while process.isRunning && Date() < stop { usleep(50_000) }
        guard !process.isRunning else { throw Failure("`swap watch` did not exit within 10 s of SIGINT") }
        process.waitUntilExit()
        let printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return (process.terminationStatus, JSON.object((JSON.parse(printed) as? [String: Any])?["error"]) ?? [:])
    }
}

extension BackgroundCommand {
    /// Its progress lines (stderr) so far mention `text`.
    func progressContains(_ text: String) -> Bool {
        ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "").contains(text)
    }
}
