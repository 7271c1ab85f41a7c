#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Many swaps at once through one provider (issue 9: "50 concurrent swaps through one
/// provider"). The network and the pay burst are shared with `bench` (SwapBench.swift).
enum LoadScenarios {
    static let all: [Scenario] = [
        Scenario(name: "concurrent-50",
                 summary: "50 swaps at once (10 clients x 5 `pay`) through one provider; each delivers exactly its amount",
                 group: .other, body: concurrent50),
    ]

    static func concurrent50(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let count = 50
        let load = try LoadNetwork.setUp(net, clock, clients: count / LoadNetwork.concurrentPerPeer, clientSat: 500_000,
                                         providerCoins: count + 10, coinSat: 100_000)
        let before = try net.hub.rpc.balances()
        let payeeBefore = try load.payee.walletBalance().total
        let amounts = LoadNetwork.amounts(count: count)
        let outcomes = try PayBurst.run(net, clock, clients: load.clients, payee: load.payee, amounts: amounts, tag: "c50")
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in
            try CrashScenarios.settle(net)
        }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let payeeGain = try load.payee.walletBalance().total - payeeBefore
        var checks = load.deliveryChecks(outcomes, before: before, after: after, payeeGain: payeeGain)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }
}

/// The network of a load run: clients holding only Lightning funds, one provider whose
/// wallet holds the coins its locks spend (`concurrent-50` gives it one per lock, so the
/// locks do not chain on one another's change; `single-coin-5` gives it one coin for all),
/// and one payee that takes only on-chain bitcoin.
struct LoadNetwork {
    /// A provider's limits per client (RiskLimits' defaults): concurrent swaps, and new
    /// swaps an hour. Load comes from enough clients to stay within both.
    static let concurrentPerPeer = 5
    static let swapsPerPeerPerHour = 20

    let clients: [Node]
    let provider: Node
    let payee: Node

    static func setUp(_ net: Testnet, _ clock: StageClock, clients: Int, clientSat: Int64, providerCoins: Int,
                      coinSat: Int64) throws(Failure) -> LoadNetwork {
        let specs = (1...clients).map { NodeSpec(name: "client\($0)", lightningSat: clientSat) }
            + [NodeSpec(name: "provA", provider: true, baseFeeSat: 300, feePPM: 1_000), NodeSpec(name: "carol")]
        let nodes = try clock.stage("create and start \(specs.count) nodes (\(clients) clients, provA, carol)") {
            () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let load = LoadNetwork(clients: Array(nodes.prefix(clients)), provider: nodes[clients], payee: nodes[clients + 1])
        try clock.stage("fund provA with \(providerCoins) coins of \(formatSats(coinSat)) (one block)") { () throws(Failure) in
            try net.fund([load.provider], sats: coinSat, coins: providerCoins)
        }
        try clock.stage("save provA and carol as contacts of every client") { () throws(Failure) in
            for client in load.clients {
                try client.saveContact(load.provider)
                try client.saveContact(load.payee)
            }
        }
        return load
    }

    /// Distinct amounts, so a swap that delivered another's amount cannot pass.
    static func amounts(count: Int, from base: Int64 = 20_000) -> [Int64] {
        (0..<count).map { base + Int64($0) * 101 }
    }

    /// Each pay succeeded through the provider and its fresh destination holds exactly its
    /// amount; the payee gained the sum; the clients paid exactly the invoices plus the
    /// routing fees; the provider received every invoice.
    func deliveryChecks(_ outcomes: [PayOutcome], before: HubBalances, after: HubBalances, payeeGain: Int64) -> [Check] {
        let failed = outcomes.filter { $0.result == nil }
        var wrong: [String] = []
        var destinations = Set<String>()
        var invoicesMsat: Int64 = 0
        var delivered: Int64 = 0
        for outcome in outcomes {
            guard let result = outcome.result else { continue }
            let destination = JSON.string(result["destination"]) ?? "?"
            let received = after.chainSat(address: destination) - before.chainSat(address: destination)
            let through = JSON.string(JSON.object(result["provider"])?["name"])
            invoicesMsat += (JSON.int(JSON.find(Demo.totalKeys, in: result)) ?? 0) * 1_000
            delivered += received
            if JSON.int(result["amount_sat"]) != outcome.amountSat || received != outcome.amountSat
                || through != provider.name || !destinations.insert(destination).inserted {
                wrong.append("\(outcome.name): asked \(formatSats(outcome.amountSat)), result \(formatSats(JSON.int(result["amount_sat"]))), "
                    + "\(destination) received \(formatSats(received)) through \(through ?? "?")")
            }
        }
        // Each command's progress lines name its own swap only (pays run at once on a client).
        let mixed = outcomes.filter { outcome in
            guard let id = JSON.string(outcome.result?["swap_id"]) else { return false }
            return Set(outcome.progress.compactMap { JSON.string($0["swap_id"]) }) != [id]
        }
        let asked = outcomes.reduce(Int64(0)) { $0 + $1.amountSat }
        let clientDrop = clients.reduce(Int64(0)) {
            $0 + (before.lightningMsat($1.name) ?? 0) - (after.lightningMsat($1.name) ?? 0)
        }
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let providerGain = (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        return [
            Check("all \(outcomes.count) pays succeeded", failed.isEmpty,
                  "\(outcomes.count - failed.count) sent" + (failed.isEmpty ? ""
                      : "; failed: " + failed.prefix(3).map { "\($0.name): \($0.said)" }.joined(separator: " | "))),
            Check("each swap delivered exactly its amount through \(provider.name), to its own address",
                  wrong.isEmpty && failed.isEmpty && destinations.count == outcomes.count,
                  "\(destinations.count) destinations; \(formatSats(delivered)) delivered of \(formatSats(asked)) asked"
                      + (wrong.isEmpty ? "" : "; wrong: " + wrong.prefix(3).joined(separator: " | "))),
            Check("each pay's progress lines are its own swap's", mixed.isEmpty,
                  "\(outcomes.count - failed.count - mixed.count) of \(outcomes.count - failed.count)"
                      + (mixed.isEmpty ? "" : "; mixed: " + mixed.prefix(3).map(\.name).joined(separator: ", "))),
            Check("\(payee.name) received the sum of the amounts", payeeGain == asked,
                  "+\(formatSats(payeeGain)) for \(formatSats(asked))"),
            Check("the clients paid exactly the invoices + the routing fees", clientDrop == invoicesMsat + routing,
                  "fell by \(formatMsat(clientDrop)); invoices \(formatMsat(invoicesMsat)) + routing \(formatMsat(routing))"),
            Check("\(provider.name) was paid every invoice", providerGain == invoicesMsat,
                  "\(provider.name) Lightning +\(formatMsat(providerGain))"),
        ]
    }
}

/// How one `pay` ended: its JSON result when it succeeded, and its progress lines.
struct PayOutcome {
    let name: String
    let amountSat: Int64
    let result: [String: Any]?
    /// The last thing it said (its error when it failed).
    let said: String
    /// The `--json` progress lines: stage, detail, swap_id, elapsed_ms (the daemon's
    /// monotonic clock since it took the command).
    let progress: [[String: Any]]

    init(name: String, amountSat: Int64, command: BackgroundCommand) {
        self.name = name
        self.amountSat = amountSat
        let parsed = command.result
        // "sent" for a reverse swap's pay, "paid" for a submarine one's (the invoice paid).
        result = command.succeeded && ["sent", "paid"].contains(JSON.string(parsed?["status"]) ?? "") ? parsed : nil
        said = command.outcome
        progress = Self.progressLines(command)
    }

    static func progressLines(_ command: BackgroundCommand) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: command.errPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { JSON.parse(String($0)) as? [String: Any] }
    }
}

/// Pays launched all at once, spread round-robin over the clients, each a `peernode pay`
/// in the background with its output in files of the run directory.
final class PayBurst {
    private let pays: [(name: String, amountSat: Int64, command: BackgroundCommand)]
    private let started: ContinuousClock.Instant
    /// How long launching every process took.
    let launchSeconds: Double

    init(_ net: Testnet, clients: [Node], payee: Node, amounts: [Int64], tag: String) throws(Failure) {
        started = .now
        var pays: [(name: String, amountSat: Int64, command: BackgroundCommand)] = []
        for (index, amount) in amounts.enumerated() {
            let client = clients[index % clients.count]
            let name = "\(tag)-\(index + 1)"
            pays.append((name, amount, try BackgroundCommand(net, node: client, ["pay", payee.name, String(amount)], name: name)))
        }
        self.pays = pays
        launchSeconds = Bench.seconds(since: started)
        runningAfterLaunch = pays.filter(\.command.isRunning).count
    }

    /// How many were still running once the last one was launched: how concurrent it was.
    let runningAfterLaunch: Int

    /// Seconds since the first launch.
    var elapsedSeconds: Double { Bench.seconds(since: started) }

    var running: Int { pays.filter(\.command.isRunning).count }

    func waitAll(timeout: TimeInterval) throws(Failure) {
        let deadline = Date().addingTimeInterval(timeout)
        for pay in pays { try pay.command.wait(timeout: max(1, deadline.timeIntervalSinceNow)) }
    }

    func outcomes() -> [PayOutcome] {
        pays.map { PayOutcome(name: $0.name, amountSat: $0.amountSat, command: $0.command) }
    }

    func stop() {
        for pay in pays { pay.command.stop() }
    }

    /// The burst as a stage: launched together while the hub mines a block a second, each
    /// waited for (10 minutes at most); how each ended.
    static func run(_ net: Testnet, _ clock: StageClock, clients: [Node], payee: Node, amounts: [Int64],
                    tag: String) throws(Failure) -> [PayOutcome] {
        try clock.stage("\(amounts.count) pays at once: \(clients.count) clients x \(amounts.count / max(1, clients.count)) "
            + "`peernode pay \(payee.name) <amount>`, a block a second") { () throws(Failure) -> [PayOutcome] in
            try Scenario.withAutomine(net) { () throws(Failure) -> [PayOutcome] in
                let burst = try PayBurst(net, clients: clients, payee: payee, amounts: amounts, tag: tag)
                clock.note("launched \(amounts.count) pays in \(Bench.milliseconds(burst.launchSeconds)) ms; "
                    + "\(burst.runningAfterLaunch) still running when the last was launched")
                try burst.waitAll(timeout: 600)
                clock.note("all \(amounts.count) pays ended \(StageClock.seconds(burst.elapsedSeconds).trimmingCharacters(in: .whitespaces)) "
                    + "after the first was launched")
                return burst.outcomes()
            }
        }
    }
}
