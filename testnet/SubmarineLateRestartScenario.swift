#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// SUB-LIQ-2 end to end: `kill -9` of the client right after it recorded `lock_intent`
/// (the funding signed, never broadcast), and the client stays down past the blocks the
/// provider waits for a lock (24 after the accept). The provider gives its swap up
/// (`no_lock_in_time`); the restarted client does not send the lock, which nobody would
/// pay for any more, but spends the funding's inputs back to its savings, and its swap ends
/// `abandoned`, nothing locked. Proved: no lock on chain, erin paid nothing, the provider's
/// LND never asked to pay, the client's savings short only the withdrawal's fee, which its
/// report counts.
enum SubmarineLateRestartScenario {
    static let point = "client:onchain_to_ln:lock_intent"
    /// Beyond the provider's wait of 24 blocks after the accept.
    static let downBlocks = 26

    static var scenario: Scenario {
        Scenario(name: "crash-sub-client-lock_intent-late",
                 summary: "submarine pay: kill -9 of the client right after it stored lock_intent, down for \(downBlocks) blocks: "
                     + "the provider gives up, the restarted client takes its funding back, nothing locked",
                 group: .crash, hubArguments: ["--clock-rate", String(SubmarineCrashScenarios.clockRate)]) { net, clock throws(Failure) in
            try run(net, clock)
        }
    }

    static func run(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, payee) = try SubmarineScenarios.setUp(
            net, clock, environment: PaceScenarios.followHub.merging([CrashScenarios.crashAfterKey: point]) { $1 })
        guard let erin = payee else { throw Failure("no payee") }
        try CrashScenarios.waitArmed(client, point)
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let sendsBefore = try SubmarineCrashScenarios.sendRequests(net, provider)
        let pay = try BackgroundCommand(net, node: client, ["pay", erin.name, String(SubmarineCrashScenarios.amountSat)], name: "pay")
        defer { pay.stop() }

        let death = try clock.stage("pay erin from savings; wait for the client to die at lock_intent") { () throws(Failure) -> String in
            guard let ended = try client.waitExit(timeout: 120, giveUp: { () throws(Failure) -> Bool in false }) else {
                throw Failure("the client never reached \(point); pay: \(pay.outcome)")
            }
            return ended
        }
        let reached = client.logContains("crash point \(point) reached")
        let givenUp = try clock.stage("mine \(downBlocks) blocks while the client is down; the provider gives its swap up") {
            () throws(Failure) -> String in
            try net.hub.mine(downBlocks)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let swaps = JSON.array(try provider.must(["swaps"])["swaps"]).compactMap(JSON.object)
                if let state = swaps.first.flatMap({ JSON.string($0["state"]) }), state != "accepted" { return state }
                usleep(200_000)
            }
            throw Failure("the provider's swap is still waiting for a lock \(downBlocks) blocks after the accept")
        }
        try clock.stage("restart the client without the crash point, same data directory") { () throws(Failure) in
            try client.pinListenAddress()
            try client.launch(environment: [CrashScenarios.crashAfterKey: ""])
            try client.waitReady()
        }
        let miner = SubmarineMiner(net: net, client: client, provider: provider, followerPoll: SubmarineCrashScenarios.followerPoll)
        try clock.stage("mine as the swap needs until every swap is final and `pay` ended") { () throws(Failure) in
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                try miner.tick()
                if !pay.isRunning && miner.allFinal { return }
                usleep(50_000)
            }
            throw Failure("not every swap ended within 120 s: \(miner.states); pay: \(pay.outcome)")
        }
        clock.note("mined \(miner.mined) block(s) after the restart; pay: \(pay.outcome)")

        let after = try net.hub.rpc.balances()
        var checks = [Check("the client died of SIGKILL at \(point)", death == "signal \(SIGKILL)" && reached,
                            "\(death); crash line in client.log: \(reached)"),
                      Check("the provider gave its swap up while the client was down", givenUp == "abandoned", "provider: \(givenUp)")]
        let clientSwaps = JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object)
        let providerSwaps = JSON.array(try provider.must(["swaps"])["swaps"]).compactMap(JSON.object)
        guard clientSwaps.count == 1, let id = JSON.string(clientSwaps[0]["id"]) else {
            throw Failure("the client holds \(clientSwaps.count) swaps, not 1")
        }
        let show = try client.must(["swap", "show", id])
        checks.append(SubmarineCrashScenarios.endStates(client: show, providerSwaps, .nothingLocked))
        let received = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        checks.append(Check("erin received nothing", received == 0, "+\(formatMsat(received))"))
        checks.append(try SubmarineCrashScenarios.sendsCheck(net, provider, since: sendsBefore, expected: .nothingLocked, state: nil))
        checks.append(try fundingCheck(net, client, show, id: id, drop: savingsBefore - (try client.walletBalance().total)))
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        checks += try clock.stage("read each node's books") { () throws(Failure) -> [Check] in
            try AccountingCheck.run([client, provider], net: net)
        }
        return checks
    }

    /// The recorded funding is on no block (the hub does not know it), and the savings fell
    /// by exactly what the client's report says the swap cost (the withdrawal's fee, as
    /// `lock_fee_sat`), which is more than nothing.
    static func fundingCheck(_ net: Testnet, _ client: Node, _ show: [String: Any], id: String,
                             drop: Int64) throws(Failure) -> Check {
        let events = JSON.array(show["events"]).compactMap(JSON.object)
        let intent = events.last { JSON.string($0["kind"]) == "lock_intent" }.flatMap { JSON.object($0["data"]) }
        guard let txid = JSON.string(JSON.object(intent?["lock"])?["txid"]) else {
            throw Failure("the client's lock_intent has no lock: \(JSON.line(intent ?? [:]).prefix(300))")
        }
        let known = (try? net.hub.rpc.call("getrawtransaction", [txid, true])) != nil
        let entry = JSON.array(try client.must(["report"])["swaps"]).compactMap(JSON.object).first { JSON.string($0["id"]) == id }
        let cost = JSON.int(entry?["lock_fee_sat"]) ?? -1
        return Check("no lock on chain; the savings fell by the funding's withdrawal fee only, as the report counts it",
                     !known && cost > 0 && drop == cost,
                     "lock \(txid.prefix(16))… known to the hub: \(known); savings -\(formatSats(drop)); report: \(formatSats(cost))")
    }
}
