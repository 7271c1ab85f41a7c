#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Mainnet pace (fund-safety issue: "time is the chain's; every scenario must also hold at
/// mainnet pace"): the hub's clock runs 100 simulated seconds per real second and mines a
/// block every 600 simulated seconds (a block every 6 real seconds), every daemon takes its time
/// from the hub (`PEERNODE_TEST_CLOCK=hub`), and swaps need 2 confirmations with no
/// zero-conf, as on mainnet. Quote and offer lifetimes, invoice expiry, the client's
/// give-up timer and the provider's hourly limits all run in that simulated time.
enum PaceScenarios {
    /// Simulated seconds per real second, and simulated seconds between blocks. The rate
    /// scales the software's own latency too: at 600, 20 pays at once on 2 shared cores took
    /// the provider over a real second (10 simulated minutes) to lock, past the client's
    /// 10-minute give-up, and 15 of 20 swaps were abandoned. At 200 the same happened to 5
    /// to 9 of 20 once LND was reached over TLS (a handshake per connection) with helpers'
    /// builds loading the machine: a payment took 1.3 real s to be held, 4.5 simulated
    /// minutes. At 100 a loaded second is under 2 simulated minutes, as slow as a real
    /// provider may be, not slower.
    static let rate = 100
    static let blockSeconds = 600
    static let hubArguments = ["--clock-rate", String(rate), "--block-interval-seconds", String(blockSeconds)]
    /// Config of every node at mainnet pace: mainnet's confirmations, no zero-conf claims,
    /// and claims final at 6 deep as on mainnet.
    static let pacedConfig = ["confirmations=2", "zero_conf=0", "client_finality_confirmations=6"]
    static let followHub = ["PEERNODE_TEST_CLOCK": "hub"]

    static let all: [Scenario] = [
        Scenario(name: "mainnet-pace",
                 summary: "20 swaps at mainnet pace (10-minute blocks on a 100x clock, 2 confirmations, no zero-conf); "
                     + "every one completes, exact amounts",
                 group: .other, hubArguments: hubArguments, body: mainnetPace),
    ]

    static func mainnetPace(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let clientCount = 4
        let count = clientCount * LoadNetwork.concurrentPerPeer
        let load = try setUp(net, clock, clients: clientCount, providerCoins: count + 10)
        var checks = [try followChecks(net)]
        let before = try net.hub.rpc.balances()
        let payeeBefore = try load.payee.walletBalance().total
        let clockBefore = try HubClockReading(net)
        let amounts = LoadNetwork.amounts(count: count)
        let outcomes = try clock.stage("\(count) pays at once: \(clientCount) clients x \(LoadNetwork.concurrentPerPeer) "
            + "`peernode pay carol <amount>`, a block every \(blockSeconds) simulated s") { () throws(Failure) -> [PayOutcome] in
            let burst = try PayBurst(net, clients: load.clients, payee: load.payee, amounts: amounts, tag: "pace")
            try burst.waitAll(timeout: 120)
            clock.note("all \(count) pays ended \(StageClock.seconds(burst.elapsedSeconds).trimmingCharacters(in: .whitespaces)) "
                + "after the first was launched")
            return burst.outcomes()
        }
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) block(s) besides the hub's own")
        let clockAfter = try HubClockReading(net)
        let after = try net.hub.rpc.balances()
        clock.note("hub clock: \(clockAfter.unixTime - clockBefore.unixTime) simulated s over "
            + String(format: "%.1f", clockAfter.wallTime - clockBefore.wallTime) + " real s, height \(before.height) -> \(after.height); "
            + "simulated time ahead of the wall clock by \(clockAfter.lead) s")
        let payeeGain = try load.payee.walletBalance().total - payeeBefore
        checks.append(paceCheck(before: clockBefore, after: clockAfter, heights: (before.height, after.height), extraBlocks: blocks))
        // Concurrent pays from one client to carol share her address until it is seen paid
        // (audit M-6: one reusable address per asking peer), and with 2 confirmations the
        // claims come late, so exactness is checked per destination, not per swap.
        checks += load.deliveryChecks(outcomes, before: before, after: after, payeeGain: payeeGain)
            .filter { !$0.name.contains("to its own address") }
        checks.append(destinationCheck(outcomes, before: before, after: after, provider: load.provider))
        checks.append(progressTimeCheck(outcomes, before: clockBefore, after: clockAfter))
        checks.append(try endStatesCheck(net, load: load))
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// Clients with Lightning funds only, `provA` with many confirmed coins, carol on chain
    /// only; every node at mainnet's confirmations and following the hub's clock.
    static func setUp(_ net: Testnet, _ clock: StageClock, clients: Int, providerCoins: Int) throws(Failure) -> LoadNetwork {
        let specs = (1...clients).map {
            NodeSpec(name: "client\($0)", lightningSat: 500_000, extraConfig: pacedConfig, environment: followHub)
        } + [NodeSpec(name: "provA", provider: true, baseFeeSat: 300, feePPM: 1_000, extraConfig: pacedConfig, environment: followHub),
             NodeSpec(name: "carol", extraConfig: pacedConfig, environment: followHub)]
        let nodes = try clock.stage("create and start \(specs.count) nodes (\(clients) clients, provA, carol), "
            + "each following the hub's clock") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let load = LoadNetwork(clients: Array(nodes.prefix(clients)), provider: nodes[clients], payee: nodes[clients + 1])
        try clock.stage("fund provA with \(providerCoins) coins of 100,000 sat (one block)") { () throws(Failure) in
            try net.fund([load.provider], sats: 100_000, coins: providerCoins)
        }
        try clock.stage("save provA and carol as contacts of every client") { () throws(Failure) in
            for client in load.clients {
                try client.saveContact(load.provider)
                try client.saveContact(load.payee)
            }
        }
        return load
    }

    /// Each destination carol gave received exactly the sum of the pays sent to it, each
    /// through the provider, and each pay's result names its own amount.
    static func destinationCheck(_ outcomes: [PayOutcome], before: HubBalances, after: HubBalances, provider: Node) -> Check {
        var asked: [String: Int64] = [:]
        var wrong: [String] = []
        for outcome in outcomes {
            guard let result = outcome.result else { wrong.append("\(outcome.name): failed"); continue }
            let destination = JSON.string(result["destination"]) ?? "?"
            asked[destination, default: 0] += outcome.amountSat
            let through = JSON.string(JSON.object(result["provider"])?["name"])
            if JSON.int(result["amount_sat"]) != outcome.amountSat || through != provider.name {
                wrong.append("\(outcome.name): result \(formatSats(JSON.int(result["amount_sat"]))) through \(through ?? "?")")
            }
        }
        for (destination, sum) in asked {
            let received = after.chainSat(address: destination) - before.chainSat(address: destination)
            if received != sum { wrong.append("\(destination) received \(formatSats(received)) for \(formatSats(sum))") }
        }
        let total = asked.values.reduce(0, +)
        return Check("each destination received exactly the amounts sent to it, through \(provider.name)", wrong.isEmpty,
                     "\(asked.count) destination(s) for \(outcomes.count) pays; \(formatSats(total)) asked"
                         + (wrong.isEmpty ? "" : "; wrong: " + wrong.prefix(5).joined(separator: "; ")))
    }

    /// Every daemon logged that it follows the hub's clock (the hook is regtest-only and
    /// refuses loudly, so a typo or another network would show here).
    static func followChecks(_ net: Testnet) throws(Failure) -> Check {
        var missing: [String] = []
        for node in net.nodes {
            let log = (try? String(contentsOfFile: net.supervisor.runDirectory + "/\(node.name).log", encoding: .utf8)) ?? ""
            if !log.contains("test clock armed") { missing.append(node.name) }
        }
        return Check("every daemon follows the hub's clock", missing.isEmpty,
                     missing.isEmpty ? "\(net.nodes.count) daemons logged `test clock armed`"
                         : "no `test clock armed` in the log of " + missing.joined(separator: ", "))
    }

    /// The hub's clock ran at its rate and its blocks came every `blockSeconds` simulated
    /// seconds (the runner's own blocks, mined while settling, counted apart).
    static func paceCheck(before: HubClockReading, after: HubClockReading, heights: (Int64, Int64),
                          extraBlocks: Int) -> Check {
        let simulated = Double(after.unixTime - before.unixTime)
        let real = after.wallTime - before.wallTime
        let measuredRate = real > 0 ? simulated / real : 0
        let hubBlocks = Int(heights.1 - heights.0) - extraBlocks
        let perBlock = hubBlocks > 0 ? simulated / Double(hubBlocks) : 0
        let expectedBlocks = simulated / Double(blockSeconds)
        // Loose bounds: the runner's reads of the clock are a few ms apart from the truth,
        // the window rarely holds a whole number of intervals (one block more or less), and
        // a block is mined a little after its interval (the mining itself takes time).
        let passed = abs(measuredRate - Double(rate)) < Double(rate) * 0.1
            && abs(Double(hubBlocks) - expectedBlocks) <= max(1.5, expectedBlocks * 0.2)
        return Check("the hub's clock ran at \(rate)x with a block every \(blockSeconds) simulated s", passed,
                     String(format: "%.0f simulated s in %.1f real s (%.0fx); %d block(s) by the hub for %.1f intervals: "
                                + "one per %.0f simulated s", simulated, real, measuredRate, hubBlocks, expectedBlocks, perBlock))
    }

    /// Each pay's progress lines carry the client daemon's clock (`at_unix`): they must
    /// fall within the hub's simulated time of the run, which is hours ahead of the wall
    /// clock, so they show the daemon's rules ran on simulated time.
    static func progressTimeCheck(_ outcomes: [PayOutcome], before: HubClockReading, after: HubClockReading) -> Check {
        // 60 simulated s (0.6 real s at 100x) of interpolation error either way.
        let window = (before.unixTime - 60)...(after.unixTime + 60)
        var outside: [String] = []
        var seen = 0
        for outcome in outcomes {
            for line in outcome.progress {
                guard let at = JSON.int(line["at_unix"]) else { continue }
                seen += 1
                if !window.contains(at) { outside.append("\(outcome.name) at \(at)") }
            }
        }
        return Check("the clients' progress times are the hub's simulated time", seen > 0 && outside.isEmpty,
                     "\(seen) progress line(s) within \(window.lowerBound)...\(window.upperBound) "
                         + "(the wall clock was \(before.lead) s behind at the start)"
                         + (outside.isEmpty ? "" : "; outside: " + outside.prefix(5).joined(separator: ", ")))
    }

    /// No swap was abandoned, failed or refunded: each client swap `completed`, each of the
    /// provider's `settled`.
    static func endStatesCheck(_ net: Testnet, load: LoadNetwork) throws(Failure) -> Check {
        var states: [String: Int] = [:]
        var wrong: [String] = []
        for node in load.clients + [load.provider] {
            let expected = node === load.provider ? "settled" : "completed"
            for swap in JSON.array(try node.must(["swaps", "--limit", "10000"])["swaps"]).compactMap(JSON.object) {
                let state = JSON.string(swap["state"]) ?? "?"
                states["\(node === load.provider ? "provider" : "client") \(state)", default: 0] += 1
                if state != expected { wrong.append("\(node.name) \(JSON.string(swap["id"]) ?? "?") \(state)") }
            }
        }
        let summary = states.keys.sorted().map { "\($0): \(states[$0]!)" }.joined(separator: ", ")
        return Check("every swap completed (client) and settled (provider); none abandoned, failed or refunded",
                     wrong.isEmpty && !states.isEmpty, summary + (wrong.isEmpty ? "" : "; not so: " + wrong.joined(separator: "; ")))
    }
}
