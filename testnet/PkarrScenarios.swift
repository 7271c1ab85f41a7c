#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Pubky identities and pkarr (docs/PUBKY.md) with real processes: every node publishes to
/// the hub's relays and every contact is added by its pubky alone.
enum PkarrScenarios {
    static let relayArguments = ["--pkarr-relays", "3"]

    static let all: [Scenario] = [
        Scenario(name: "pkarr-moved", summary: "a provider added by pubky alone moves to another port and republishes: "
                     + "the client's pay reaches it there", group: .quick, hubArguments: relayArguments, body: moved),
        Scenario(name: "pkarr-hostile-relays", summary: "one relay forges the moved provider's packet, one serves the stale one, "
                     + "one is honest: both are ignored and the pay goes through", group: .other, hubArguments: relayArguments,
                 body: hostileRelays),
        Scenario(name: "pkarr-relay-down", summary: "a relay is down from the start: contacts are resolved and paid through "
                     + "the others", group: .other, hubArguments: relayArguments, body: relayDown),
        Scenario(name: "private-discovery", summary: "private_discovery=1: providers ranked from their descriptors; the one "
                     + "not chosen and a contact without a descriptor get no connection at all", group: .quick,
                 hubArguments: relayArguments, body: privateDiscovery),
        Scenario(name: "descriptor-dishonoured", summary: "a provider whose descriptor advertises a fee its offer does not "
                     + "honour is skipped with the reason; the honest one is paid", group: .other,
                 hubArguments: relayArguments, body: descriptorDishonoured),
    ]

    static let amountSat: Int64 = 25_000

    /// The config lines that make a node publish to, and resolve through, every relay.
    static func pkarrConfig(_ net: Testnet) -> [String] {
        net.hub.pkarrRelays.map { "pkarr_relay=\($0)" } + ["discovery_interval_seconds=2"]
    }

    /// The client, `providers` (name, base fee, ppm; funded), and carol (the payee), all
    /// publishing; the client saves each by pubky alone.
    private static func setUp(_ net: Testnet, _ clock: StageClock, providers: [(String, Int64, Int64)],
                              others: [String] = [], clientConfig: [String] = [],
                              environment: [String: [String: String]] = [:]) throws(Failure) -> (Node, [Node], Node) {
        let common = pkarrConfig(net)
        let specs = [NodeSpec(name: "client", lightningSat: 500_000, extraConfig: common + clientConfig)]
            + providers.map { NodeSpec(name: $0.0, provider: true, baseFeeSat: $0.1, feePPM: $0.2, extraConfig: common,
                                       environment: environment[$0.0] ?? [:]) }
            + (others + ["carol"]).map { NodeSpec(name: $0, extraConfig: common) }
        let nodes = try clock.stage("create and start \(specs.count) nodes, each publishing to \(net.hub.pkarrRelays.count) relays")
        { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let client = nodes[0]
        let providerNodes = Array(nodes.dropFirst().prefix(providers.count))
        try clock.stage("fund \(providerNodes.count) provider wallet(s); each republishes its capability descriptor") { () throws(Failure) in
            let published = try providerNodes.map { node throws(Failure) in try node.publishedPacketTimestamp() }
            try net.fund(providerNodes, sats: 2_000_000)
            for (provider, before) in zip(providerNodes, published) { try provider.waitForRepublish(than: before) }
        }
        try clock.stage("save \(nodes.count - 1) contacts on the client by pubky alone (`peernode contacts add <name> <pubky>`)")
        { () throws(Failure) in
            for node in nodes.dropFirst() {
                let added = try client.saveContactByPubky(node)
                let contact = JSON.object(added["contact"])
                guard JSON.string(contact?["address_from"]) == "pkarr" else {
                    throw Failure("\(node.name) was not resolved through pkarr: \(JSON.line(added))")
                }
                clock.note("\(node.name): \(JSON.string(contact?["host"]) ?? "?"):\(JSON.int(contact?["port"]) ?? 0) (found through pkarr)")
            }
        }
        return (client, providerNodes, nodes.last!)
    }

    /// Restarts `node` on a fresh port (its config says port 0) and waits until it has
    /// republished: its new port differs.
    private static func move(_ node: Node, _ clock: StageClock) throws(Failure) -> (old: String, new: String) {
        try clock.stage("\(node.name) stops and starts again on another port (it republishes its packet)") { () throws(Failure) in
            let old = node.listen ?? "?"
            clock.note(node.stop())
            try node.start()
            let new = node.listen ?? "?"
            guard new != old else { throw Failure("\(node.name) came back on the same address \(old)") }
            clock.note("\(node.name): \(old) -> \(new)")
            return (old, new)
        }
    }

    /// `pay <contact> <amount> --yes` with a block a second, its progress lines kept; then
    /// the payee's wallet mined until it has the amount.
    private static func pay(_ net: Testnet, _ clock: StageClock, client: Node, contact: Node) throws(Failure)
        -> (result: [String: Any], lines: [String], contactBefore: Int64, before: HubBalances) {
        let before = try net.hub.rpc.balances()
        let contactBefore = try contact.walletBalance().confirmed
        var seen: [String] = []
        let result = try clock.stage("pay \(contact.name) \(formatSats(amountSat)) (`peernode pay`)") { () throws(Failure) -> [String: Any] in
            try Scenario.withAutomine(net) { () throws(Failure) -> [String: Any] in
                let lines = ProgressLines()
                let run = try client.cli(["pay", contact.name, String(amountSat), "--yes"], timeout: 300) {
                    if let stage = lines.fresh($0) {
                        seen.append(stage)
                        clock.note("… " + stage)
                    }
                }
                guard run.ok, let json = run.json else { throw Failure("pay failed (exit \(run.status)): \(run.failureText)") }
                return json
            }
        }
        _ = try clock.stage("mine until \(contact.name)'s wallet has it") { () throws(Failure) -> Int in
            try net.mine(until: "\(contact.name) receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
                try contact.walletBalance().confirmed >= contactBefore + amountSat
            }
        }
        return (result, seen, contactBefore, before)
    }

    /// Exact amounts, the provider, every swap final, value conserved.
    private static func paidChecks(_ net: Testnet, paid: (result: [String: Any], lines: [String], contactBefore: Int64, before: HubBalances),
                                   contact: Node, provider: Node) throws(Failure) -> [Check] {
        let after = try net.hub.rpc.balances()
        let received = try contact.walletBalance().confirmed - paid.contactBefore
        var checks = [Check("\(contact.name) received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))")]
        checks += Scenario.paidChecks(before: paid.before, after: after, result: paid.result, provider: provider, paid: paid.result)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: paid.before, after: after)
        return checks
    }

    private static func status(_ node: Node) throws(Failure) -> [String: Any] {
        JSON.object(try node.must(["status"])["pkarr"]) ?? [:]
    }

    // MARK: - scenarios

    static func moved(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 300, 1_000)])
        let (_, new) = try move(providers[0], clock)
        let paid = try pay(net, clock, client: client, contact: carol)
        let listed = try client.must(["contacts", "list"])
        let row = (listed["contacts"] as? [Any] ?? []).compactMap(JSON.object).first { JSON.string($0["name"]) == "provA" }
        let saved = "\(JSON.string(row?["host"]) ?? "?"):\(JSON.int(row?["port"]) ?? 0)"
        return [Check("the client followed provA to its new address", saved == new, "contacts list: provA at \(saved), it listens on \(new)")]
            + (try paidChecks(net, paid: paid, contact: carol, provider: providers[0]))
    }

    static func hostileRelays(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 300, 1_000)])
        _ = try move(providers[0], clock)
        try clock.stage("relay 0 serves a forged packet of every key, relay 1 the packet before the newest") { () throws(Failure) in
            _ = try net.hub.rpc.call("hub_pkarr_relay", [0, "forged"])
            _ = try net.hub.rpc.call("hub_pkarr_relay", [1, "stale"])
        }
        let paid = try pay(net, clock, client: client, contact: carol)
        let discovery = JSON.object(try status(client)["discovery"]) ?? [:]
        let refused = JSON.int(discovery["answers_refused"]) ?? 0
        let older = JSON.int(discovery["older_ignored"]) ?? 0
        return [
            Check("forged packets were refused, never used", refused > 0, "answers refused: \(refused)"),
            Check("stale packets were ignored, never used", older > 0, "older packets ignored: \(older)"),
        ] + (try paidChecks(net, paid: paid, contact: carol, provider: providers[0]))
    }

    static func relayDown(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        try clock.stage("relay 0 is down before any node starts") { () throws(Failure) in
            _ = try net.hub.rpc.call("hub_pkarr_relay", [0, "down"])
        }
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 300, 1_000)])
        _ = try move(providers[0], clock)
        let paid = try pay(net, clock, client: client, contact: carol)
        let relays = try net.hub.rpc.call("hub_pkarr_relays") as? [Any] ?? []
        let served = relays.compactMap(JSON.object).dropFirst().map { JSON.int($0["gets_found"]) ?? 0 }.reduce(0, +)
        return [Check("the other relays answered", served > 0, "GETs answered by relays 1 and 2: \(served)")]
            + (try paidChecks(net, paid: paid, contact: carol, provider: providers[0]))
    }

    static func privateDiscovery(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 300, 1_000), ("provB", 500, 2_000)],
                                                   others: ["dave"], clientConfig: ["private_discovery=1"])
        let (provA, provB) = (providers[0], providers[1])
        guard let dave = net.node("dave") else { throw Failure("no dave") }
        try clock.stage("wait until the client's discovery sweep holds both providers' descriptors") { () throws(Failure) in
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let discovery = JSON.object(try status(client)["discovery"]) ?? [:]
                if JSON.int(discovery["with_descriptor"]) ?? 0 >= 2 { return }
                usleep(200_000)
            }
            throw Failure("the client's sweep never saw two descriptors")
        }
        let before = try [provA, provB, dave].map { node throws(Failure) in try node.peerConnectionsAccepted() }
        let paid = try pay(net, clock, client: client, contact: carol)
        let after = try [provA, provB, dave].map { node throws(Failure) in try node.peerConnectionsAccepted() }
        let ranked = paid.lines.contains { $0.contains("2 ranked from their published descriptors (asked nothing)") }
        let askedAlone = paid.lines.contains { $0.contains("provA was ranked from its published descriptor; asking it alone") }
        let daveSkipped = paid.lines.contains { $0.contains("dave") && $0.contains("private_discovery=1 forbids probing it") }
        return [
            Check("the progress lines say the providers were ranked from their descriptors", ranked && askedAlone,
                  paid.lines.filter { $0.hasPrefix("routing") }.joined(separator: " | ")),
            Check("dave (no descriptor) was skipped, not probed", daveSkipped, "private_discovery=1"),
            Check("provB (not chosen) got no connection at all", after[1] == before[1],
                  "provB accepted connections: \(before[1]) -> \(after[1])"),
            Check("dave got no connection at all", after[2] == before[2], "dave accepted connections: \(before[2]) -> \(after[2])"),
            Check("provA (chosen) was contacted", after[0] > before[0], "provA accepted connections: \(before[0]) -> \(after[0])"),
        ] + (try paidChecks(net, paid: paid, contact: carol, provider: provA))
    }

    static func descriptorDishonoured(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // provA offers 5,000 ppm but publishes 0 ppm: the cheapest by its descriptor, not by its offer.
        let (client, providers, carol) = try setUp(net, clock, providers: [("provA", 300, 5_000), ("provB", 500, 2_000)],
                                                   environment: ["provA": ["PEERNODE_TEST_DESCRIPTOR_FEE_PPM": "0"]])
        let (provA, provB) = (providers[0], providers[1])
        try clock.stage("wait until the client holds both descriptors") { () throws(Failure) in
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if JSON.int((JSON.object(try status(client)["discovery"]) ?? [:])["with_descriptor"]) ?? 0 >= 2 { return }
                usleep(200_000)
            }
            throw Failure("the client's sweep never saw two descriptors")
        }
        let paid = try pay(net, clock, client: client, contact: carol)
        let skipped = paid.lines.first { $0.contains("skipped provA") && $0.contains("does not honour its published descriptor") }
        let provASwaps = (try provA.must(["swaps"])["swaps"] as? [Any] ?? []).count
        return [
            Check("provA was skipped with the reason", skipped != nil, skipped ?? paid.lines.joined(separator: " | ")),
            Check("provA holds no swap", provASwaps == 0, "\(provASwaps) swap(s)"),
        ] + (try paidChecks(net, paid: paid, contact: carol, provider: provB))
    }
}
