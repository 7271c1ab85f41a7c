#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The named sets of scenarios: `scenarios` runs the quick one, `scenarios crash` the
/// crash one, `scenarios --all` every scenario.
enum ScenarioSet: String, Sendable {
    case quick
    /// In no named set; runs with --all or by name.
    case other
    /// `kill -9` at every persisted state (CrashScenarios.swift).
    case crash
    /// The Electrum scenarios beyond the one `--all` runs (ElectrumScenarios.swift): with
    /// `scenarios electrum`, or `--all electrum` (`make testnet-all`).
    case electrum
    /// Load scenarios too long for `make test`'s budget (`submarine-concurrent-50`, about
    /// 50 s): with `scenarios load`, or `--all load` (`make testnet-all`).
    case load
}

/// One scenario: its own hub and nodes (a fresh network, so scenarios cannot disturb each
/// other), steps, and checks ending with the two every scenario has: every swap final and
/// agreed on, and value conserved.
struct Scenario: Sendable {
    let name: String
    let summary: String
    /// Which named set it belongs to; every set runs with --all.
    let group: ScenarioSet
    let body: @Sendable (Testnet, StageClock) throws(Failure) -> [Check]
    /// Extra `peernode-regtest` options for this scenario's hub (a simulated clock).
    let hubArguments: [String]

    /// In the quick set (`make testnet`, CI).
    var quick: Bool { group == .quick }

    init(name: String, summary: String, group: ScenarioSet, hubArguments: [String] = [],
         body: @escaping @Sendable (Testnet, StageClock) throws(Failure) -> [Check]) {
        self.name = name
        self.summary = summary
        self.group = group
        self.hubArguments = hubArguments
        self.body = body
    }

    init(name: String, summary: String, quick: Bool, body: @escaping @Sendable (Testnet, StageClock) throws(Failure) -> [Check]) {
        self.init(name: name, summary: summary, group: quick ? .quick : .other, body: body)
    }

    static let all: [Scenario] = base + ChainScenarios.all + CrashScenarios.all + AdversaryScenarios.all + HostileClientScenarios.all
        + RefundScenarios.all + LNDScenarios.all
        + LoadScenarios.all + CapacityScenarios.all + PaceScenarios.all + LifecycleScenarios.all + FloodScenarios.all
        + SoakScenarios.all + ElectrumScenarios.all + ElectrumNodeScenarios.all + ElectrumVariants.all
        + [ElectrumLagScenario.scenario, ElectrumSwallowScenario.scenario] + SubmarineScenarios.all + SubmarineFaultScenarios.all + SubmarineCrashScenarios.all
        + [SubmarineLateRestartScenario.scenario]
        + SubmarineRecoveryScenarios.all + RailScenarios.all + CoopScenarios.all + SubmarineCoopScenarios.all + PkarrScenarios.all

    static let base: [Scenario] = [
        Scenario(name: "pay-contact", summary: "pay an on-chain-only contact through the only provider; exact amounts", quick: true,
                 body: payContact),
        Scenario(name: "no-provider", summary: "no contact runs a provider: a clear error and nothing paid", quick: true,
                 body: noProvider),
        Scenario(name: "offline-provider", summary: "a provider that is offline is skipped; the online one is used", quick: true,
                 body: offlineProvider),
        Scenario(name: "cheapest-wins", summary: "of three providers the cheapest for the amount is used", quick: false,
                 body: cheapestWins),
        Scenario(name: "swap-out", summary: "move Lightning funds to the client's own on-chain wallet", quick: false,
                 body: swapOut),
        Scenario(name: "fee-cap", summary: "a client with max_fee_ppm=10000 (1 %) refuses a provider charging more; nothing paid",
                 quick: false, body: feeCap),
        Scenario(name: "pay-max", summary: "pay the most LND lets the client send; what is left is what LND keeps and the routing reserve",
                 quick: false, body: payMax),
    ]

    // MARK: - scenarios

    static func payContact(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        return try payAndCheck(net, clock, client: client, contact: carol, amountSat: 25_000, expectProvider: providers[0])
    }

    static func noProvider(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, _, carol) = try setUp(net, clock, providers: [], others: ["dave", "carol"])
        try clock.stage("probe: no offers expected") { () throws(Failure) in
            let offers = try client.must(["offers"], timeout: 60)
            clock.note("offers: \(JSON.array(offers["offers"]).count), skipped: "
                + JSON.array(offers["skipped"]).map { "\(JSON.string(JSON.object($0)?["contact"]) ?? "?") (\(JSON.string(JSON.object($0)?["reason"]) ?? "?"))" }
                    .joined(separator: ", "))
        }
        return try refusedPay(net, clock, client: client, contact: carol, amountSat: 20_000,
                              expected: "an error naming the missing provider") { refusal in
            refusal.failureText.lowercased().contains("provider")
                && !refusal.failureText.contains("not_available") && !refusal.failureText.contains("not wired")
        }
    }

    static func offlineProvider(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 400, 2_000), ("gone", 100, 500)], others: ["carol"])
        let gone = providers[1]
        try clock.stage("stop gone (the cheaper provider)") { () throws(Failure) in clock.note(gone.stop()) }
        let skipped = try clock.stage("probe: gone must be skipped") { () throws(Failure) -> Bool in
            let offers = try client.must(["offers"], timeout: 60)
            let skipped = JSON.array(offers["skipped"]).compactMap(JSON.object)
            for entry in skipped { clock.note("skipped \(JSON.string(entry["contact"]) ?? "?"): \(JSON.string(entry["reason"]) ?? "?")") }
            let offered = JSON.array(offers["offers"]).compactMap { JSON.string(JSON.object($0)?["contact"]) }
            clock.note("offers from: \(offered.joined(separator: ", "))")
            return skipped.contains { JSON.string($0["contact"]) == "gone" } && offered == ["provA"]
        }
        var checks = [Check("the offline provider is skipped with a reason", skipped, "see the probe above")]
        checks += try payAndCheck(net, clock, client: client, contact: carol, amountSat: 20_000, expectProvider: providers[0])
        return checks
    }

    static func cheapestWins(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("dear", 1_200, 5_000), ("cheap", 200, 1_000),
                                                                           ("middle", 600, 3_000)], others: ["carol"])
        return try payAndCheck(net, clock, client: client, contact: carol, amountSat: 50_000, expectProvider: providers[1])
    }

    static func swapOut(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, _) = try setUp(net, clock, providers: [("provA", 500, 2_000)], others: [])
        let before = try net.hub.rpc.balances()
        let walletBefore = try client.walletBalance().confirmed
        let amount: Int64 = 30_000
        let result = try clock.stage("swap-out \(formatSats(amount)) to the client's own wallet") { () throws(Failure) -> [String: Any] in
            try withAutomine(net) { () throws(Failure) -> [String: Any] in
                let lines = ProgressLines()
                let result = try client.cli(["swap-out", String(amount)], timeout: 300) { if let stage = lines.fresh($0) { clock.note("… " + stage) } }
                guard result.ok, let json = result.json else { throw Failure("swap-out failed (exit \(result.status)): \(result.failureText)") }
                clock.note(Demo.routeAndFees(json))
                return json
            }
        }
        _ = try net.mine(until: "the client's wallet receiving the swap-out", blocks: 20) { () throws(Failure) -> Bool in
            try client.walletBalance().confirmed >= walletBefore + amount
        }
        let after = try net.hub.rpc.balances()
        let received = try client.walletBalance().confirmed - walletBefore
        // With musig2 (the default) the key-path claim's saving goes to the wallet too.
        let saved = JSON.int(result["claim_saved_sat"]) ?? 0
        var checks = [Check("the wallet received exactly \(formatSats(amount)) plus the key path's saving \(formatSats(saved))",
                            received == amount + saved, "+\(formatSats(received)); claim \(JSON.string(result["claim_path"]) ?? "?")")]
        checks += paidChecks(before: before, after: after, result: result, provider: providers[0])
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    static func feeCap(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // provA charges 500 sat + 2,000 ppm plus its on-chain fee: about 3 % of 25,000 sat.
        let (client, _, carol) = try setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                           config: ["client": ["max_fee_ppm=10000"]])
        return try refusedPay(net, clock, client: client, contact: carol, amountSat: 25_000,
                              expected: "an error naming provA's fees and the 1 % maximum") { refusal in
            refusal.failureText.contains("provA") && refusal.failureText.contains("above this node's maximum")
                && refusal.failureText.contains("(1% of")
        }
    }

    static func payMax(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"], clientSat: 100_000)
        let max = try clock.stage("max sendable to carol (`peernode max --contact carol`)") { () throws(Failure) -> Int64 in
            let json = try client.must(["max", "--contact", "carol"], timeout: 120)
            clock.note(Demo.render(json))
            guard let amount = JSON.int(JSON.find(["max_sat", "max_sendable_sat"], in: json)) else {
                throw Failure("`max` gave no amount: \(JSON.line(json))")
            }
            return amount
        }
        var checks = try payAndCheck(net, clock, client: client, contact: carol, amountSat: max, expectProvider: providers[0])
        let left = try net.hub.rpc.balances().lightningMsat("client") ?? 0
        // What is left is what LND never lets the channel's funder send (the channel reserve,
        // 1% of the 100,000 sat channel: 1,000 sat; the two anchors, 660 sat; the fee buffer,
        // 2 × 2,500 sat/kw × (1,124 + 172) wu: 6,480 sat) and at most a routing reserve:
        // under 1 % of the balance plus a few sats (the simulator charges 1 sat + 100 ppm).
        // Below that, `max` would have promised a payment LND refuses.
        let kept: Int64 = 1_000_000 + 660_000 + 6_480_000
        checks.append(Check("the balance drops to the channel reserve, anchors and fee buffer plus the routing reserve",
                            left >= kept && left <= kept + 100_000 * 10 + 5_000,
                            "left on Lightning: \(formatMsat(left)), of which \(formatMsat(kept)) LND keeps"))
        return checks
    }

    // MARK: - building blocks

    /// A client (Lightning only), providers with the given fees (funded on chain), and
    /// other nodes running no provider; the client saves all of them as contacts.
    /// `config`: extra config lines by node name (a client that waits for a confirmation,
    /// a provider with a short refund timeout).
    static func setUp(_ net: Testnet, _ clock: StageClock, providers: [(String, Int64, Int64)], others: [String],
                      clientSat: Int64 = 500_000, config: [String: [String]] = [:]) throws(Failure) -> (Node, [Node], Node) {
        let specs = ([NodeSpec(name: "client", lightningSat: clientSat)]
            + providers.map { NodeSpec(name: $0.0, provider: true, baseFeeSat: $0.1, feePPM: $0.2) }
            + others.map { NodeSpec(name: $0) })
            .map { spec in var spec = spec; spec.extraConfig += config[spec.name] ?? []; return spec }
        let nodes = try clock.stage("create and start \(specs.count) nodes") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let client = nodes[0]
        let providerNodes = Array(nodes.dropFirst().prefix(providers.count))
        if !providerNodes.isEmpty {
            try clock.stage("fund \(providerNodes.count) provider wallet(s)") { () throws(Failure) in
                try net.fund(providerNodes, sats: 2_000_000)
            }
        }
        try clock.stage("save \(nodes.count - 1) contacts on the client") { () throws(Failure) in
            for node in nodes.dropFirst() { try client.saveContact(node) }
        }
        return (client, providerNodes, nodes.last!)
    }

    /// `pay <contact> <amount>` must fail (exit 1) with an error `explains` accepts, and
    /// nothing may move: the client's Lightning balance and the contact's wallet unchanged
    /// after a block, then the two common checks.
    static func refusedPay(_ net: Testnet, _ clock: StageClock, client: Node, contact: Node, amountSat: Int64,
                           expected: String, explains: (ToolResult) -> Bool) throws(Failure) -> [Check] {
        let before = try net.hub.rpc.balances()
        let contactBefore = try contact.walletBalance().total
        let refusal = try clock.stage("pay \(contact.name) \(formatSats(amountSat)): must fail") { () throws(Failure) -> ToolResult in
            let lines = ProgressLines()
            let result = try client.cli(["pay", contact.name, String(amountSat)], timeout: 120) {
                if let stage = lines.fresh($0) { clock.note("… " + stage) }
            }
            clock.note("exit \(result.status): \(result.failureText)")
            return result
        }
        try net.hub.mine(1)
        usleep(1_200_000)
        let after = try net.hub.rpc.balances()
        let contactAfter = try contact.walletBalance().total
        var checks = [
            Check("pay refused with \(expected)", refusal.status == 1 && explains(refusal),
                  "exit \(refusal.status): \(refusal.failureText)"),
            Check("nothing paid", before.lightningMsat("client") == after.lightningMsat("client") && contactAfter == contactBefore,
                  "client Lightning \(formatMsat(before.lightningMsat("client"))) -> \(formatMsat(after.lightningMsat("client"))); "
                  + "\(contact.name) on-chain \(formatSats(contactBefore)) -> \(formatSats(contactAfter))"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// `block` with the hub mining a block a second (so locks and claims confirm while a
    /// command waits for them), mining off again afterwards.
    static func withAutomine<T>(_ net: Testnet, _ block: () throws(Failure) -> T) throws(Failure) -> T {
        _ = try net.hub.rpc.call("hub_automine", [1])
        defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
        return try block()
    }

    /// Quote, pay, mine until the contact's wallet has it, then the checks: exact amount
    /// received, exact amount paid, the expected provider, every swap final, value conserved.
    /// `options` go to both `quote` and `pay` (`--contract-type p2wsh_v2`); with `commitQuote`,
    /// `pay` commits the quote just printed (`--quote <id>`) instead of asking again.
    static func payAndCheck(_ net: Testnet, _ clock: StageClock, client: Node, contact: Node, amountSat: Int64,
                            expectProvider: Node, options: [String] = [], commitQuote: Bool = false) throws(Failure) -> [Check] {
        let before = try net.hub.rpc.balances()
        let contactBefore = try contact.walletBalance().confirmed
        let quote = try clock.stage("quote \(formatSats(amountSat)) to \(contact.name)") { () throws(Failure) -> [String: Any] in
            let json = try client.must(["quote", String(amountSat), "--contact", contact.name] + options, timeout: 60)
            clock.note(Demo.routeAndFees(json))
            return json
        }
        var payArguments = ["pay", contact.name, String(amountSat)] + options
        if commitQuote {
            guard let id = JSON.string(quote["quote_id"]) else { throw Failure("`quote` printed no quote_id: \(JSON.line(quote))") }
            payArguments += ["--quote", id]
        }
        let paid = try clock.stage(payArguments.joined(separator: " ")) { () throws(Failure) -> [String: Any] in
            try withAutomine(net) { () throws(Failure) -> [String: Any] in
                let lines = ProgressLines()
                let result = try client.cli(payArguments, timeout: 300) {
                    if let stage = lines.fresh($0) { clock.note("… " + stage) }
                }
                guard result.ok, let json = result.json else { throw Failure("pay failed (exit \(result.status)): \(result.failureText)") }
                clock.note(Demo.routeAndFees(json))
                return json
            }
        }
        _ = try clock.stage("mine until \(contact.name)'s wallet has it") { () throws(Failure) -> Int in
            try net.mine(until: "\(contact.name) receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
                try contact.walletBalance().confirmed >= contactBefore + amountSat
            }
        }
        let after = try net.hub.rpc.balances()
        let received = try contact.walletBalance().confirmed - contactBefore
        var checks = [Check("\(contact.name) received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))")]
        checks += paidChecks(before: before, after: after, result: quote, provider: expectProvider, paid: paid)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// The client's Lightning balance fell by exactly the quoted total plus the routing
    /// fee the simulator collected, and the expected provider received the invoice.
    static func paidChecks(before: HubBalances, after: HubBalances, result: [String: Any], provider: Node,
                           paid: [String: Any]? = nil) -> [Check] {
        let drop = (before.lightningMsat("client") ?? 0) - (after.lightningMsat("client") ?? 0)
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let gained = (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        guard let total = JSON.int(JSON.find(Demo.totalKeys, in: result)) else {
            return [Check("client paid exactly the quote's total + the routing fee", false, "no total in \(JSON.line(result))")]
        }
        return [
            Check("client paid exactly the quote's total + the routing fee", drop == total * 1_000 + routing,
                  "fell by \(formatMsat(drop)); total \(formatSats(total)) + routing \(formatMsat(routing))"),
            Check("\(provider.name) was paid the invoice", gained == total * 1_000,
                  "\(provider.name) Lightning +\(formatMsat(gained))"),
        ]
    }
}

/// Runs the scenarios one after another, each on its own network, and prints a summary.
func runScenarios(_ selection: [Scenario], _ run: RunContext) -> Int32 {
    Console.out("run directory (data dirs and logs): \(run.directory)")
    var results: [(String, Bool, String)] = []
    for scenario in selection where !run.live.interrupted {
        let started = Date()
        Console.out("")
        Console.out("=== scenario \(scenario.name): \(scenario.summary)")
        let directory = run.directory + "/" + scenario.name
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            results.append((scenario.name, false, "cannot create \(directory): \(error)"))
            continue
        }
        let supervisor = Supervisor(runDirectory: directory)
        run.live.add(supervisor)
        let clock = StageClock()
        do {
            let net = try clock.stage("start the regtest hub") { () throws(Failure) -> Testnet in
                try Testnet(supervisor: supervisor, binaries: run.binaries, hubArguments: scenario.hubArguments)
            }
            let checks = try scenario.body(net, clock)
            for check in checks { Console.out("  " + check.line) }
            let failed = checks.filter { !$0.passed }.map(\.name)
            results.append((scenario.name, failed.isEmpty, failed.isEmpty ? "\(checks.count) checks passed" : "failed: " + failed.joined(separator: "; ")))
        } catch {
            results.append((scenario.name, false, "\(error)"))
        }
        Console.out("[\(clock.stamp)] stop every process this scenario started")
        for outcome in supervisor.stopAll() { clock.note(outcome) }
        run.live.remove(supervisor)
        if let last = results.indices.last {
            results[last].2 += " (\(String(format: "%.1f", Date().timeIntervalSince(started))) s)"
        }
    }
    Console.out("")
    Console.out("scenarios:")
    for (name, passed, detail) in results { Console.out("  \(passed ? "PASS" : "FAIL")  \(name): \(detail)") }
    Console.out("logs: \(run.directory)")
    return results.allSatisfy(\.1) ? 0 : 1
}
