#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `peernode-testnet bench --submarine` (issue 16's figures, release build): (a) the
/// on-chain → Lightning leg a provider runs, lock confirmed → invoice paid → claim in the
/// mempool, over sequential `peernode pay erin` from savings, against the hub's primitives
/// that leg needs (one plain invoice payment, one mempool accept) measured in the same
/// run; (b) swaps/s through one provider with both directions mixed against reverse swaps
/// alone, on the same network. A submarine provider pays only a confirmed lock (at least
/// 1 confirmation, docs/HTLC.md), so (a) starts at the block that confirms the lock: the
/// runner mines it as soon as the lock is in the mempool.
struct SubmarineBench {
    let net: Testnet
    let clock: StageClock
    let options: BenchOptions

    /// One sequential swap's moments, wall clock (the runner's and the provider log's
    /// timestamps share the machine's clock).
    struct Leg {
        let mined: Date
        let confirmed: Date
        let paid: Date
        let claimed: Date
        /// The runner saw the claim in the hub's mempool.
        let seen: Date
    }

    struct Figures {
        var plainPayments: [Double] = []
        var mempoolAccepts: [Double] = []
        var legs: [Leg] = []
        var reverseAlone = Burst()
        var mixed = Burst()
    }

    /// One burst: its pays, from the first launch to the last pay's end, and the CPU every
    /// process of the network used meanwhile (daemons, hub, runner, the ended commands).
    struct Burst {
        var swaps = 0
        var seconds = 0.0
        var cpuMilliseconds = 0.0

        var perSecond: Double { seconds > 0 ? Double(swaps) / seconds : 0 }
        var cpuPerSwap: Double { swaps > 0 ? cpuMilliseconds / Double(swaps) : 0 }
        /// The swaps/s this machine's cores allow at that CPU per swap.
        var capacity: Double { cpuPerSwap > 0 ? Double(ProcessInfo.processInfo.activeProcessorCount) * 1_000 / cpuPerSwap : 0 }
    }

    static func run(_ run: RunContext, _ options: BenchOptions) -> Int32 {
        Bench.onOneHub(run, headline: "peernode bench --submarine: \(options.swaps) sequential on-chain -> Lightning swaps "
                           + "(`peernode pay erin` from savings), then \(options.concurrent) pays at once through one provider, "
                           + "reverse alone and both directions mixed") { net, clock throws(Failure) in
            let (figures, checks) = try SubmarineBench(net: net, clock: clock, options: options).measure()
            return (checks, report(figures))
        }
    }

    // MARK: - the network

    /// Sequential clients hold savings (one coin a swap), the burst's reverse clients
    /// Lightning, its submarine clients savings; each within the provider's per-client
    /// limits (5 at once, 20 an hour).
    struct Network {
        let sequential: [Node]
        let reverseAlone: [Node]
        let mixedReverse: [Node]
        let mixedSubmarine: [Node]
        let provider: Node
        let carol: Node
        let erin: Node
    }

    static let coinSat: Int64 = 50_000

    func setUp() throws(Failure) -> Network {
        let perHour = LoadNetwork.swapsPerPeerPerHour, perPeer = LoadNetwork.concurrentPerPeer
        let sequentialCount = (options.swaps + perHour - 1) / perHour
        let burstCount = (options.concurrent + perPeer - 1) / perPeer
        let half = max(1, (options.concurrent / 2 + perPeer - 1) / perPeer)
        var specs: [NodeSpec] = []
        specs += (1...sequentialCount).map { NodeSpec(name: "seq\($0)") }
        specs += (1...burstCount).map { NodeSpec(name: "rev\($0)", lightningSat: Int64(perPeer) * 60_000) }
        specs += (1...half).map { NodeSpec(name: "mixrev\($0)", lightningSat: Int64(perPeer) * 60_000) }
        specs += (1...half).map { NodeSpec(name: "mixsub\($0)") }
        let providerLightning = Int64(options.swaps + options.concurrent) * 40_000 + 1_000_000
        specs += [NodeSpec(name: "provA", lightningSat: providerLightning, provider: true, baseFeeSat: 300, feePPM: 1_000,
                           extraConfig: DemoSavingsJourney.submarineConfig(baseFeeSat: 300, feePPM: 1_000)),
                  NodeSpec(name: "carol"), NodeSpec(name: "erin", extraConfig: ["accept_onchain=0"])]
        let nodes = try clock.stage("create and start \(specs.count) nodes") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        var rest = nodes[...]
        func take(_ count: Int) -> [Node] { defer { rest = rest.dropFirst(count) }; return Array(rest.prefix(count)) }
        let network = Network(sequential: take(sequentialCount), reverseAlone: take(burstCount), mixedReverse: take(half),
                              mixedSubmarine: take(half), provider: take(1)[0], carol: take(1)[0], erin: take(1)[0])
        try clock.stage("fund the savings clients with a coin a swap, provA with a coin a reverse swap (one block each)") {
            () throws(Failure) in
            try net.fund(network.sequential, sats: Self.coinSat, coins: perHour)
            try net.fund(network.mixedSubmarine, sats: Self.coinSat, coins: perPeer)
            try net.fund([network.provider], sats: 400_000, coins: options.concurrent * 2 + 10)
        }
        try clock.stage("save provA, carol and erin on every client, every savings client on erin") { () throws(Failure) in
            for client in network.sequential + network.reverseAlone + network.mixedReverse + network.mixedSubmarine {
                try client.saveContact(network.provider)
                try client.saveContact(network.carol)
                try client.saveContact(network.erin)
            }
            for client in network.sequential + network.mixedSubmarine { try network.erin.saveContact(client) }
        }
        return network
    }

    // MARK: - the measurement

    func measure() throws(Failure) -> (Figures, [Check]) {
        var figures = Figures()
        let rounds = SwapBench.primitiveRounds
        try clock.stage("the peer: hub primitives, \(rounds) rounds each") { () throws(Failure) in
            let measured = try HubPrimitives.measure(net, rounds: rounds)
            figures.mempoolAccepts = measured.mempoolAccepts
            figures.plainPayments = try plainPayments(rounds: rounds)
            clock.note("plain invoice payment p50 \(String(format: "%.2f", Bench.quantile(figures.plainPayments, 0.5))) ms; "
                + "mempool accept p50 \(String(format: "%.2f", Bench.quantile(figures.mempoolAccepts, 0.5))) ms")
        }
        let network = try setUp()
        let before = try net.hub.rpc.balances()
        let carolBefore = try network.carol.walletBalance().total

        let sequential = try clock.stage("(a) \(options.swaps) submarine swaps one after another over \(network.sequential.count) "
            + "clients; a block as soon as each lock is in the mempool") { () throws(Failure) -> [PayOutcome] in
            try sequentialPays(network, figures: &figures)
        }
        let amounts = LoadNetwork.amounts(count: options.concurrent, from: 22_000)
        let alone = try clock.stage("(b) \(options.concurrent) reverse pays at once (to carol), a block a second") {
            () throws(Failure) -> [PayOutcome] in
            try burst([(network.reverseAlone, network.carol, amounts)], tag: "rev", into: &figures.reverseAlone)
        }
        let half = options.concurrent / 2
        let mixed = try clock.stage("(b) \(half) reverse (to carol) and \(options.concurrent - half) submarine (to erin) pays at once, "
            + "a block a second") { () throws(Failure) -> [PayOutcome] in
            try burst([(network.mixedReverse, network.carol, Array(amounts.prefix(half))),
                       (network.mixedSubmarine, network.erin, Array(amounts.dropFirst(half)))], tag: "mix", into: &figures.mixed)
        }
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let carolGain = try network.carol.walletBalance().total - carolBefore
        let submarineOutcomes = sequential + mixed.filter { $0.name.hasPrefix("mix-sub") }
        let reverseOutcomes = alone + mixed.filter { $0.name.hasPrefix("mix-rev") }
        let checks = try deliveryChecks(network, submarine: submarineOutcomes, reverse: reverseOutcomes,
                                        balances: (before, after), carolGain: carolGain)
            + [Check("every sequential swap timed from the provider's log", figures.legs.count == options.swaps,
                     "\(figures.legs.count) of \(options.swaps)"),
               try CommonChecks.swapsFinal(net.nodes, hub: after)]
            + CommonChecks.conservation(before: before, after: after)
        return (figures, checks)
    }

    /// Each pay starts on an empty mempool; once its lock is there the runner mines it, then
    /// waits for the provider's claim in the mempool and the pay's end, and mines the claim.
    private func sequentialPays(_ network: Network, figures: inout Figures) throws(Failure) -> [PayOutcome] {
        let amounts = LoadNetwork.amounts(count: options.swaps, from: 21_000)
        var outcomes: [PayOutcome] = []
        var timed: [(providerID: String, mined: Date, seen: Date)] = []
        for (index, amount) in amounts.enumerated() {
            let name = "seq-\(index + 1)"
            guard try mempoolSize() == 0 else { throw Failure("\(name): the mempool is not empty before the pay") }
            let command = try BackgroundCommand(net, node: network.sequential[index % network.sequential.count],
                                                ["pay", network.erin.name, String(amount)], name: name)
            try waitFor("\(name)'s lock in the mempool", command) { () throws(Failure) -> Bool in try mempoolSize() >= 1 }
            try net.hub.mine(1)
            let mined = Date()
            try waitFor("\(name)'s claim in the mempool", command, endedIsFine: true) { () throws(Failure) -> Bool in
                try mempoolSize() >= 1
            }
            let seen = Date()
            try command.wait(timeout: 60)
            let outcome = PayOutcome(name: name, amountSat: amount, command: command)
            outcomes.append(outcome)
            guard let id = JSON.string(outcome.result?["swap_id"]) else { throw Failure("\(name) failed: \(outcome.said)") }
            timed.append((SubmarineFaultNet.providerID(of: id), mined, seen))
            try net.hub.mine(1)
            if (index + 1) % 25 == 0 { clock.note("\(index + 1) claims out") }
        }
        // The provider's log, read once its lines for every swap are written.
        let log = try ProviderLog.read(network.provider, holding: timed.map(\.providerID))
        for swap in timed {
            let moments = try log.moments(of: swap.providerID)
            figures.legs.append(Leg(mined: swap.mined, confirmed: moments.confirmed, paid: moments.paid, claimed: moments.claimed,
                                    seen: swap.seen))
        }
        return outcomes
    }

    /// Every pay of every group launched at once while the hub mines a block a second,
    /// timed from the first launch until the last pay ended.
    private func burst(_ groups: [(clients: [Node], payee: Node, amounts: [Int64])], tag: String,
                       into figure: inout Burst) throws(Failure) -> [PayOutcome] {
        try Scenario.withAutomine(net) { () throws(Failure) -> [PayOutcome] in
            let cpuBefore = try networkCPU()
            let started = ContinuousClock.now
            var bursts: [PayBurst] = []
            for group in groups {
                let kind = group.payee.name == "erin" ? "sub" : "rev"
                bursts.append(try PayBurst(net, clients: group.clients, payee: group.payee, amounts: group.amounts, tag: "\(tag)-\(kind)"))
            }
            defer { for burst in bursts { burst.stop() } }
            for burst in bursts { try burst.waitAll(timeout: 600) }
            figure = Burst(swaps: groups.reduce(0) { $0 + $1.amounts.count }, seconds: Bench.seconds(since: started),
                           cpuMilliseconds: try networkCPU() - cpuBefore)
            clock.note("\(figure.swaps) pays ended \(String(format: "%.2f", figure.seconds)) s after the first launch; "
                + String(format: "%.1f ms of CPU a swap", figure.cpuPerSwap))
            return bursts.flatMap { $0.outcomes() }
        }
    }

    private func waitFor(_ what: String, _ command: BackgroundCommand, endedIsFine: Bool = false,
                         _ condition: () throws(Failure) -> Bool) throws(Failure) {
        let deadline = Date().addingTimeInterval(60)
        while try !condition() {
            if !endedIsFine, !command.isRunning { throw Failure("the pay ended before \(what): \(command.outcome)") }
            if Date() > deadline { throw Failure("no \(what) within 60 s") }
            usleep(1_000)
        }
    }

    /// CPU so far of every running daemon, the hub, this runner and its ended commands.
    private func networkCPU() throws(Failure) -> Double {
        var total = try ProcessCPU.milliseconds(pid: net.hub.process.processIdentifier)
            + ProcessCPU.milliseconds(pid: getpid()) + ProcessCPU.milliseconds(pid: getpid(), children: true)
        for node in net.nodes where node.isRunning { total += try ProcessCPU.milliseconds(of: node) }
        return total
    }

    private func mempoolSize() throws(Failure) -> Int {
        Int(JSON.int(JSON.object(try net.hub.rpc.call("getmempoolinfo"))?["size"]) ?? -1)
    }

    /// A plain invoice paid over the hub's LND REST: addinvoice on the payee, router/send on
    /// the payer up to SUCCEEDED (what a submarine provider's payment is), milliseconds each.
    private func plainPayments(rounds: Int) throws(Failure) -> [Double] {
        let payer = try HubPrimitives.RESTNode(net, name: "plainpayer", sat: Int64(rounds) * 40_000)
        let payee = try HubPrimitives.RESTNode(net, name: "plainpayee", sat: 0)
        var times: [Double] = []
        for _ in 0..<rounds {
            let started = ContinuousClock.now
            let invoice = try payee.mustPost("/v1/invoices", ["value": "20000"])
            guard let request = JSON.string(invoice["payment_request"]) else { throw Failure("addinvoice gave no payment_request") }
            let sending = try LoopbackHTTP.send(port: payer.port, path: "/v2/router/send", headers: payer.headers,
                                                body: try payer.body(["payment_request": request, "fee_limit_sat": "100",
                                                                      "cltv_limit": 1_000, "timeout_seconds": 60]), timeout: 30)
            defer { sending.close() }
            let outcome = try sending.response()
            guard outcome.body.contains("\"SUCCEEDED\"") else {
                throw Failure("the plain payment did not succeed: HTTP \(outcome.status): \(outcome.body.suffix(300))")
            }
            times.append(Bench.seconds(since: started) * 1_000)
        }
        return times
    }

    // MARK: - checks

    /// Every pay succeeded through provA with its own amount; erin's Lightning rose by
    /// exactly the submarine amounts, carol's wallet by exactly the reverse ones.
    private func deliveryChecks(_ network: Network, submarine: [PayOutcome], reverse: [PayOutcome],
                                balances: (HubBalances, HubBalances), carolGain: Int64) throws(Failure) -> [Check] {
        let all = submarine + reverse
        let wrong = all.filter { outcome in
            guard let result = outcome.result else { return true }
            return JSON.int(result["amount_sat"]) != outcome.amountSat
                || JSON.string(JSON.object(result["provider"])?["name"]) != network.provider.name
        }
        let erinGain = (balances.1.lightningMsat(network.erin.name) ?? 0) - (balances.0.lightningMsat(network.erin.name) ?? 0)
        let submarineSum = submarine.reduce(Int64(0)) { $0 + $1.amountSat }
        let reverseSum = reverse.reduce(Int64(0)) { $0 + $1.amountSat }
        return [
            Check("all \(all.count) pays succeeded through provA, each its own amount", wrong.isEmpty,
                  "\(all.count - wrong.count) of \(all.count)" + (wrong.isEmpty ? ""
                      : "; wrong: " + wrong.prefix(3).map { "\($0.name): \($0.said.prefix(160))" }.joined(separator: " | "))),
            Check("erin's Lightning rose by exactly the \(submarine.count) submarine amounts", erinGain == submarineSum * 1_000,
                  "+\(formatMsat(erinGain)) for \(formatSats(submarineSum))"),
            Check("carol's wallet rose by exactly the \(reverse.count) reverse amounts", carolGain == reverseSum,
                  "+\(formatSats(carolGain)) for \(formatSats(reverseSum))"),
        ]
    }

    // MARK: - the report

    static func report(_ figures: Figures) -> String {
        func ms(_ values: [Double], _ q: Double) -> String { String(format: "%.1f", Bench.quantile(values, q)) }
        func span(_ from: KeyPath<Leg, Date>, _ to: KeyPath<Leg, Date>) -> [Double] {
            figures.legs.map { $0[keyPath: to].timeIntervalSince($0[keyPath: from]) * 1_000 }
        }
        let leg = span(\.confirmed, \.claimed)
        let peer = Bench.quantile(figures.plainPayments, 0.5) + Bench.quantile(figures.mempoolAccepts, 0.5)
        let p50 = Bench.quantile(leg, 0.5), p99 = Bench.quantile(leg, 0.99)
        let alone = figures.reverseAlone, mixed = figures.mixed
        func percent(_ value: Double, _ of: Double) -> String { of > 0 ? String(format: "%.0f %%", value / of * 100) : "-" }
        var lines = [Bench.table([
            ["figure", "peernode", "peer (hub primitives)", "ratio", "goal", "met"],
            ["(a) lock confirmed -> invoice paid -> claim in mempool, p50 (\(leg.count) sequential)", String(format: "%.1f ms", p50),
             String(format: "%.1f ms", peer), peer > 0 ? String(format: "%.1fx", p50 / peer) : "-", "", ""],
            ["(a) the same, p99", String(format: "%.1f ms", p99), "", peer > 0 ? String(format: "%.1fx", p99 / peer) : "-", "", ""],
            ["(b) swaps/s, both directions mixed (\(mixed.swaps) at once), wall clock", String(format: "%.1f", mixed.perSecond),
             String(format: "%.1f reverse alone (\(alone.swaps))", alone.perSecond), percent(mixed.perSecond, alone.perSecond),
             ">= reverse alone", mixed.perSecond >= alone.perSecond ? "yes" : "NO"],
            ["(b) CPU per swap, all processes", String(format: "%.1f ms", mixed.cpuPerSwap),
             String(format: "%.1f ms reverse alone", alone.cpuPerSwap), percent(mixed.cpuPerSwap, alone.cpuPerSwap), "", ""],
            ["(b) swaps/s the cores allow at that CPU", String(format: "%.1f", mixed.capacity),
             String(format: "%.1f reverse alone", alone.capacity), percent(mixed.capacity, alone.capacity),
             ">= reverse alone", mixed.capacity >= alone.capacity ? "yes" : "NO"],
        ])]
        lines.append("")
        lines.append("where the time of a sequential swap goes (wall clock: the runner's and the provider log's, p50 / p99 ms):")
        lines.append(Bench.table([
            ["stage", "p50", "p99"],
            ["block mined (lock in it) -> provider's lock_confirmed", ms(span(\.mined, \.confirmed), 0.5), ms(span(\.mined, \.confirmed), 0.99)],
            ["lock_confirmed -> paid (payment_intent, the payment, its preimage)", ms(span(\.confirmed, \.paid), 0.5),
             ms(span(\.confirmed, \.paid), 0.99)],
            ["paid -> claim broadcast (key-path round with the client, sendrawtransaction)", ms(span(\.paid, \.claimed), 0.5),
             ms(span(\.paid, \.claimed), 0.99)],
            ["claim broadcast -> seen in the hub's mempool by the runner", ms(span(\.claimed, \.seen), 0.5), ms(span(\.claimed, \.seen), 0.99)],
        ]))
        lines.append("")
        lines.append("peer: one plain invoice payment p50 (addinvoice, router/send to SUCCEEDED) + one mempool accept p50 "
            + "(hub_fund unmined), \(SwapBench.primitiveRounds) rounds each over loopback.")
        lines.append("(b): from the first `pay` launched to the last one ended (a reverse pay ends at its claim's confirmation, "
            + "a submarine pay once the invoice is paid), blocks a second apart in both runs: a submarine pay waits for a "
            + "block and the provider's chain poll, a zero-conf reverse one does not, so the wall figure counts that wait; "
            + "the cores' figure counts the work.")
        return lines.joined(separator: "\n")
    }
}

/// The provider's log lines of its submarine swaps: when it saw each lock confirmed, when
/// its payment succeeded and when its claim was broadcast (the log's millisecond stamps).
struct ProviderLog {
    /// Each swap's lines, by the provider's swap id ("submarine swap <id>: ...").
    private let lines: [String: [Substring]]

    init(_ provider: Node) throws(Failure) {
        let path = provider.datadir + "/../\(provider.name).log"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw Failure("cannot read \(path)") }
        var lines: [String: [Substring]] = [:]
        for line in text.split(separator: "\n") {
            guard let start = line.range(of: "submarine swap ")?.upperBound, let end = line[start...].firstIndex(of: ":") else {
                continue
            }
            lines[String(line[start..<end]), default: []].append(line)
        }
        self.lines = lines
    }

    /// The log once it holds the three lines of every swap of `ids`: the daemon writes a
    /// line after the act it reports, so the last claim can be in the mempool a few
    /// milliseconds before its line.
    static func read(_ provider: Node, holding ids: [String]) throws(Failure) -> ProviderLog {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let log = try ProviderLog(provider)
            do {
                for id in ids { _ = try log.moments(of: id) }
                return log
            } catch {
                if Date() > deadline { throw error }
                usleep(10_000)
            }
        }
    }

    func moments(of providerID: String) throws(Failure) -> (confirmed: Date, paid: Date, claimed: Date) {
        let lines = self.lines[providerID] ?? []
        let stamps = ISO8601DateFormatter()
        stamps.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func first(_ marker: String) throws(Failure) -> Date {
            guard let line = lines.first(where: { $0.contains(marker) }), let stamp = line.split(separator: " ").first,
                  let date = stamps.date(from: String(stamp)) else {
                throw Failure("the provider's log has no \"\(marker)\" line for swap \(providerID)")
            }
            return date
        }
        return (try first("-> lock_confirmed"), try first("-> paid"), try first(" broadcast at "))
    }
}
