#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The README's demo (issue 9): a client holding only spending funds (500,000 sat on
/// Lightning, nothing on chain) pays carol, who accepts only on-chain bitcoin, 20,000 sat
/// through a provider found among its 5 contacts: two providers with different fees, one
/// offline, two running no provider (carol among them). Then the second journey
/// (`DemoSavingsJourney`): dave, holding only savings, pays erin, who takes only Lightning.
struct Demo {
    static let amountSat: Int64 = 20_000
    static let clientLightningSat: Int64 = 500_000
    static let providerFundingSat: Int64 = 2_000_000

    let net: Testnet
    let clock: StageClock
    /// Config lines every node gets: the `chain_backend=electrum` ones for `--chain electrum`.
    var chainConfig: [String] = []

    /// provA and provB run both directions, provA the cheaper in each; erin (the second
    /// journey's payee) takes Lightning only.
    static let specs: [NodeSpec] = [
        NodeSpec(name: "client", lightningSat: clientLightningSat),
        NodeSpec(name: "provA", lightningSat: DemoSavingsJourney.providerLightningSat, provider: true, baseFeeSat: 300,
                 feePPM: 1_000, extraConfig: DemoSavingsJourney.submarineConfig(baseFeeSat: 300, feePPM: 1_000)),
        NodeSpec(name: "provB", lightningSat: DemoSavingsJourney.providerLightningSat, provider: true, baseFeeSat: 500,
                 feePPM: 2_000, extraConfig: DemoSavingsJourney.submarineConfig(baseFeeSat: 500, feePPM: 2_000)),
        NodeSpec(name: "gone", provider: true, baseFeeSat: 100, feePPM: 1_000),
        NodeSpec(name: "dave"),
        // carol's pubky is a Pubky identity (pubky-core's sample recovery file), which
        // certifies her node's own key: contacts add the identity and reach the node.
        NodeSpec(name: "carol", pubkyRecoveryFile: Demo.sampleRecoveryFile),
        DemoSavingsJourney.erinSpec,
    ]

    /// `Tests/Data/vectors/pubky/sample_recovery.key`, beside this file in the repository.
    static let sampleRecoveryFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Data/vectors/pubky/sample_recovery.key").path

    func run() throws(Failure) -> [Check] {
        let nodes = try clock.stage("create 7 nodes: a Lightning node on the hub, `peernode init`, macaroon and config each") {
            () throws(Failure) -> [Node] in
            try net.add(Self.specs.map { spec in
                var spec = spec
                // Every node publishes its endpoints (a provider its capability descriptor) to
                // the hub's relays, and resolves its contacts there.
                spec.extraConfig += chainConfig + net.hub.pkarrRelays.map { "pkarr_relay=\($0)" }
                return spec
            })
        }
        let node = { (name: String) -> Node in nodes.first { $0.name == name }! }
        let (client, provA, provB, gone, carol) = (node("client"), node("provA"), node("provB"), node("gone"), node("carol"))
        let (dave, erin) = (node("dave"), node("erin"))

        try clock.stage("start 7 daemons and wait until each answers `peernode status`") { () throws(Failure) in
            try net.start(nodes)
            clock.note(Self.nodeTable(nodes, hub: try net.hub.rpc.balances()))
        }
        try clock.stage("fund the providers' on-chain wallets with \(formatSats(Self.providerFundingSat)) each (hub_fund, mined); "
                        + "each republishes its capability descriptor") {
            () throws(Failure) in
            let published = try [provA, provB].map { node throws(Failure) in try node.publishedPacketTimestamp() }
            try net.fund([provA, provB], sats: Self.providerFundingSat)
            // What they can lock changed, so their descriptors did: wait for the republish a
            // client's lookup would read.
            for (provider, before) in zip([provA, provB], published) { try provider.waitForRepublish(than: before) }
        }
        try clock.stage("save the client's 5 contacts by pubky alone (`peernode contacts add <name> <pubky>`: found through pkarr)") {
            () throws(Failure) in
            for other in [provA, provB, gone, node("dave"), carol] { try client.saveContactByPubky(other) }
            clock.note(try client.cliText(["contacts", "list"]).stdout.trimmingCharacters(in: .newlines))
        }
        try clock.stage("take the contact \"gone\" (a provider) offline: stop its daemon") { () throws(Failure) in
            clock.note(gone.stop())
        }

        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance()
        let clientChainBefore = try client.walletBalance()

        try clock.stage("probe the contacts (`peernode offers`)") { () throws(Failure) in
            let text = try client.cliText(["offers"], timeout: 60)
            guard text.ok else { throw Failure("offers failed (exit \(text.status)): \(text.failureText)") }
            clock.note(text.stdout.trimmingCharacters(in: .newlines))
        }

        // The quote: the route and the fee breakdown the payment must match.
        let quote = try clock.stage("quote \(formatSats(Self.amountSat)) to carol (`peernode quote \(Self.amountSat) --contact carol`)") {
            () throws(Failure) -> [String: Any]? in
            let result = try client.cli(["quote", String(Self.amountSat), "--contact", "carol"], timeout: 60)
            guard result.ok, let json = result.json else {
                // Without the client engine the daemon answers not_available: shown as it
                // is, and the demo goes on to `pay`, which is where it has to stop.
                clock.note("the daemon answered (exit \(result.status)): \(result.failureText)")
                return nil
            }
            clock.note(Self.routeAndFees(json))
            return json
        }

        let paid = try clock.stage("pay carol \(formatSats(Self.amountSat)) (`peernode pay carol \(Self.amountSat) --yes`), blocks mined every second") {
            () throws(Failure) -> [String: Any] in
            // A block a second lets a lock and a claim confirm while `pay` waits.
            _ = try net.hub.rpc.call("hub_automine", [1])
            defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
            let lines = ProgressLines()
            let result = try client.cli(["pay", "carol", String(Self.amountSat)], timeout: 300) { line in
                if let stage = lines.fresh(line) { Console.out("[\(clock.stamp)]   … \(stage)") }
            }
            guard result.ok, let json = result.json else {
                let code = JSON.string(JSON.object(result.json?["error"])?["code"]).map { " [\($0)]" } ?? ""
                throw Failure("pay failed (exit \(result.status))\(code): \(result.failureText)")
            }
            clock.note(Self.routeAndFees(json))
            return json
        }

        // Carol's 20,000 sat are the client's swap, not hers: to her books, a deposit.
        net.ledger.deposit(carol.name, msat: Self.amountSat * 1_000, "paid by the client's swap")

        let mined = try clock.stage("mine until carol's wallet sees the claim confirmed") { () throws(Failure) -> Int in
            try net.mine(until: "carol's wallet receiving \(formatSats(Self.amountSat)) confirmed", blocks: 20) { () throws(Failure) -> Bool in
                try carol.walletBalance().confirmed >= carolBefore.confirmed + Self.amountSat
            }
        }
        clock.note("\(mined) more block(s) mined")

        let after = try clock.stage("final balances") { () throws(Failure) -> HubBalances in
            let balances = try net.hub.rpc.balances()
            clock.note(Self.nodeTable(nodes, hub: balances))
            return balances
        }

        var checks: [Check] = []
        let carolAfter = try carol.walletBalance()
        let received = carolAfter.confirmed - carolBefore.confirmed
        checks.append(Check("carol received exactly \(formatSats(Self.amountSat))", received == Self.amountSat,
                            "confirmed \(formatSats(carolBefore.confirmed)) -> \(formatSats(carolAfter.confirmed)) (+\(formatSats(received)))"))

        let clientDrop = (before.lightningMsat("client") ?? 0) - (after.lightningMsat("client") ?? 0)
        let routingFee = after.feesCollectedMsat - before.feesCollectedMsat
        let quoted = JSON.int(JSON.find(Self.totalKeys, in: quote ?? [:]))
        let invoiced = JSON.int(JSON.find(["invoice_total_sat"], in: paid))
        if let quoted {
            checks.append(Check("client paid exactly the quote's total + the routing fee", clientDrop == quoted * 1_000 + routingFee,
                                "Lightning balance fell by \(formatMsat(clientDrop)); quote total \(formatSats(quoted)) + routing fee "
                                + "\(formatMsat(routingFee)) = \(formatMsat(quoted * 1_000 + routingFee))"
                                + (invoiced.map { "; invoice paid \(formatSats($0))" } ?? "")))
        } else {
            checks.append(Check("client paid exactly the quote's total + the routing fee", false,
                                "the quote gave no total (\(Self.totalKeys.joined(separator: "/"))): \(JSON.line(quote))"))
        }
        let clientChainAfter = try client.walletBalance()
        checks.append(Check("client's on-chain wallet untouched", clientChainAfter.total == clientChainBefore.total,
                            "\(formatSats(clientChainBefore.total)) -> \(formatSats(clientChainAfter.total))"))

        let swapsA = JSON.array(try provA.must(["swaps"])["swaps"]).count
        let swapsB = JSON.array(try provB.must(["swaps"])["swaps"]).count
        let routed = JSON.string(JSON.object(paid["provider"])?["name"]) ?? JSON.string(JSON.object(quote?["provider"])?["name"])
        checks.append(Check("the cheaper provider (provA) was chosen", swapsA == 1 && swapsB == 0 && routed == "provA",
                            "route through \(routed ?? "?"); provA holds \(swapsA) swap(s), provB \(swapsB)"))
        checks.append(try CommonChecks.swapsFinal(nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)

        // The second journey: savings to a Lightning-only contact.
        Console.out("")
        Console.out("journey 2: dave pays erin, who takes only Lightning, from his on-chain savings")
        checks += try DemoSavingsJourney(net: net, clock: clock).run(dave: dave, erin: erin, providers: [provA, provB],
                                                                      nodes: nodes)
        checks += try clock.stage("each node's books against its balances (`peernode report --json`; \"gone\" started again for its own)") {
            () throws(Failure) -> [Check] in
            try gone.start()
            return try AccountingCheck.run(nodes, net: net)
        }
        return checks
    }

    /// Where the quote's total (what the Lightning invoice asks) may be named.
    static let totalKeys = ["invoice_total_sat", "total_sat", "total_cost_sat"]

    /// Each node: role, address, pubky, on-chain wallet (from the chain's view of its
    /// balance through `wallet balance`) and Lightning balance (from the hub).
    static func nodeTable(_ nodes: [Node], hub: HubBalances) -> String {
        var rows = [["NODE", "ROLE", "LISTEN", "PUBKY", "ON-CHAIN", "LIGHTNING"]]
        for node in nodes {
            let role = node.spec.provider ? "provider \(node.spec.baseFeeSat) sat + \(node.spec.feePPM) ppm" : "no provider"
            let chain = node.isRunning ? ((try? node.walletBalance()).map { formatSats($0.total) } ?? "?") : "(offline)"
            rows.append([node.name, role, node.isRunning ? (node.listen ?? "?") : "-", String(node.pubky.prefix(12)) + "…",
                         chain, formatMsat(hub.lightningMsat(node.name))])
        }
        rows.append(["hub", "miner", "-", "-", formatSats(JSON.sats(btc: JSON.object(hub.raw["hub"])?["spendable"])), "-"])
        return table(rows)
    }

    static func table(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows.map(\.count).max() ?? 0)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// The chosen route, the contacts left out, and the fee breakdown of a `quote` or
    /// `pay` result; anything else in it as `key: value` lines.
    static func routeAndFees(_ result: [String: Any]) -> String {
        guard let provider = JSON.object(result["provider"]), let fees = JSON.object(result["fees"]) else { return render(result) }
        var lines = ["route: through \(JSON.string(provider["name"]) ?? "?") at \(JSON.string(provider["address"]) ?? "?"), "
            + "contract \(JSON.string(provider["contract_type"]) ?? "?")"]
        for other in JSON.array(result["alternatives"]).compactMap(JSON.object) {
            lines.append("  not chosen: \(JSON.string(other["contact"]) ?? "?") (fees \(formatSats(JSON.int(other["fees_total_sat"]))))")
        }
        for skipped in JSON.array(result["skipped"]).compactMap(JSON.object) {
            lines.append("  skipped: \(JSON.string(skipped["contact"]) ?? "?"): \(JSON.string(skipped["reason"]) ?? "?")")
        }
        lines.append("fees:")
        let rows: [(String, String)] = [
            ("amount (carol receives)", "amount_sat"), ("service fee", "service_fee_sat"),
            ("provider on-chain fee", "provider_onchain_fee_sat"), ("claim fee", "claim_fee_sat"),
            ("invoice total", "invoice_total_sat"), ("routing fee (at most)", "routing_fee_max_sat"),
            ("fees in all (at most)", "fees_total_sat"), ("spend at most", "spend_max_sat"),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        for (label, key) in rows where fees[key] != nil {
            let amount = formatSats(JSON.int(fees[key]))
            lines.append("  \(label)\(String(repeating: " ", count: width - label.count))  "
                + String(repeating: " ", count: max(0, 12 - amount.count)) + amount)
        }
        // Then what the result adds: where the money goes and, after `pay`, the outcome.
        let outcome = ["destination", "spending_balance_sat", "status", "settlement", "swap_id", "claim_txid"]
        let rest = result.filter { outcome.contains($0.key) }
        if !rest.isEmpty { lines.append(render(rest)) }
        return lines.joined(separator: "\n")
    }

    /// A result object as indented `key: value` lines, amounts grouped.
    static func render(_ value: Any?, indent: String = "") -> String {
        guard let object = value as? [String: Any] else { return indent + JSON.line(value) }
        var lines: [String] = []
        for key in object.keys.sorted() {
            let member = object[key]
            if member is [String: Any] {
                lines.append("\(indent)\(key):")
                lines.append(render(member, indent: indent + "  "))
            } else if key.hasSuffix("_sat"), let amount = JSON.int(member) {
                lines.append("\(indent)\(key): \(formatSats(amount))")
            } else if let text = member as? String {
                lines.append("\(indent)\(key): \(text)")
            } else {
                lines.append("\(indent)\(key): \(JSON.line(member))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A progress line (JSON with --json) as one readable line; nil for the other
    /// stderr lines (the command's own error message, shown when it fails).
    static func progress(_ line: String) -> String? {
        guard let object = JSON.parse(line) as? [String: Any] else { return nil }
        let stage = JSON.string(object["stage"]) ?? JSON.string(object["phase"])
        let detail = JSON.string(object["detail"]) ?? JSON.string(object["message"])
        if let stage { return detail.map { "\(stage): \($0)" } ?? stage }
        return JSON.line(object)
    }
}

/// A command's progress lines as they are shown: each readable once, so a claim
/// rebroadcast every block does not fill the screen with the same line.
final class ProgressLines {
    private var seen: Set<String> = []

    func fresh(_ line: String) -> String? {
        guard let text = Demo.progress(line), seen.insert(text).inserted else { return nil }
        return text
    }
}
