#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The on-chain → Lightning direction (issue 16) with real processes: a client holding
/// only savings pays a contact who takes only Lightning, or refills its own Lightning
/// balance (`swap-in`), through a provider that pays the invoice once the client's lock
/// has its confirmations and claims the lock with the preimage.
enum SubmarineScenarios {
    static let all: [Scenario] = [
        Scenario(name: "submarine-pay", summary: "pay a Lightning-only contact from savings through a provider: the payee gets exactly X",
                 quick: true, body: payFromSavings),
        Scenario(name: "swap-in", summary: "move savings to the node's own Lightning balance: exactly X arrives", quick: false,
                 body: swapIn),
        Scenario(name: "submarine-provider-gone", summary: "the provider stops after the lock and never pays: the client refunds after the timeout",
                 quick: false, body: providerGone),
    ]

    static let amountSat: Int64 = 25_000
    static let savingsSat: Int64 = 400_000

    /// A client with savings only, one submarine provider with Lightning to pay from, and
    /// (unless `payee` is nil) a payee taking Lightning only; contacts saved both ways.
    /// `providerConfig`: extra config lines for the provider (a shorter timeout);
    /// `environment`: added to every daemon's (`PEERNODE_TEST_CLOCK=hub`).
    static func setUp(_ net: Testnet, _ clock: StageClock, payee: String? = "erin", providerConfig: [String] = [],
                      environment: [String: String] = [:]) throws(Failure) -> (Node, Node, Node?) {
        var specs = [NodeSpec(name: "client"),
                     NodeSpec(name: "provA", lightningSat: DemoSavingsJourney.providerLightningSat, provider: true, baseFeeSat: 300,
                              feePPM: 1_000,
                              extraConfig: DemoSavingsJourney.submarineConfig(baseFeeSat: 300, feePPM: 1_000) + providerConfig)]
        if let payee { specs.append(NodeSpec(name: payee, extraConfig: ["accept_onchain=0"])) }
        specs = specs.map { spec in var spec = spec; spec.environment.merge(environment) { $1 }; return spec }
        let nodes = try clock.stage("create and start \(specs.count) nodes") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let (client, provider) = (nodes[0], nodes[1])
        let payeeNode = nodes.count > 2 ? nodes[2] : nil
        try clock.stage("fund the client's savings (\(formatSats(savingsSat))) and the provider's wallet") { () throws(Failure) in
            try net.fund([client], sats: savingsSat)
            try net.fund([provider], sats: 1_000_000)
        }
        try clock.stage("save the contacts") { () throws(Failure) in
            try client.saveContact(provider)
            if let payeeNode {
                try client.saveContact(payeeNode)
                try payeeNode.saveContact(client)
            }
        }
        return (client, provider, payeeNode)
    }

    /// Runs `arguments` (a pay or a swap-in) with a block a second; its JSON result.
    static func run(_ net: Testnet, _ clock: StageClock, _ client: Node, _ arguments: [String]) throws(Failure) -> [String: Any] {
        try clock.stage("`peernode \(arguments.joined(separator: " "))`, a block mined every second") { () throws(Failure) -> [String: Any] in
            _ = try net.hub.rpc.call("hub_automine", [1])
            defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
            let lines = ProgressLines()
            let result = try client.cli(arguments, timeout: 300) { line in
                if let stage = lines.fresh(line) { clock.note("… " + stage) }
            }
            guard result.ok, let json = result.json else {
                throw Failure("\(arguments[0]) failed (exit \(result.status)): \(result.failureText)")
            }
            clock.note(Demo.render(json))
            return json
        }
    }

    /// Mines until every swap on `nodes` is final.
    static func mineUntilFinal(_ net: Testnet, _ nodes: [Node], blocks: Int = 40) throws(Failure) {
        _ = try net.mine(until: "every swap final", blocks: blocks) { () throws(Failure) -> Bool in
            for node in nodes {
                let swaps = JSON.array(try node.must(["swaps"])["swaps"])
                if !swaps.allSatisfy({ JSON.bool(JSON.object($0)?["final"]) == true }) { return false }
            }
            return true
        }
    }

    /// The savings check: the wallet fell by exactly the lock total plus the lock's fee.
    static func savingsCheck(_ result: [String: Any], before: Int64, after: Int64) -> Check {
        let lockTotal = JSON.int(JSON.find(["lock_total_sat", "total_sat"], in: result))
        let lockFee = JSON.int(JSON.find(["lock_fee_sat"], in: result))
        guard let lockTotal, let lockFee else {
            return Check("savings fell by exactly the lock total + the lock's fee", false,
                         "the result names no lock_total_sat/lock_fee_sat: \(JSON.line(result))")
        }
        return Check("savings fell by exactly the lock total + the lock's fee", before - after == lockTotal + lockFee,
                     "\(formatSats(before)) -> \(formatSats(after)) (-\(formatSats(before - after))); lock \(formatSats(lockTotal)) "
                     + "+ fee \(formatSats(lockFee))")
    }

    static func payFromSavings(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, payee) = try setUp(net, clock)
        guard let erin = payee else { throw Failure("no payee") }
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let result = try run(net, clock, client, ["pay", erin.name, String(amountSat)])
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap")
        try mineUntilFinal(net, [client, provider])
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        return [
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            savingsCheck(result, before: savingsBefore, after: try client.walletBalance().total),
            try CommonChecks.swapsFinal(net.nodes, hub: after),
        ] + CommonChecks.conservation(before: before, after: after)
    }

    static func swapIn(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, _) = try setUp(net, clock, payee: nil)
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let result = try run(net, clock, client, ["swap-in", String(amountSat)])
        try mineUntilFinal(net, [client, provider])
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(client.name) ?? 0) - (before.lightningMsat(client.name) ?? 0)
        return [
            Check("the client's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            savingsCheck(result, before: savingsBefore, after: try client.walletBalance().total),
            try CommonChecks.swapsFinal(net.nodes, hub: after),
        ] + CommonChecks.conservation(before: before, after: after)
    }

    /// The provider stops once the client's lock is broadcast and stays down: the
    /// invoice is never paid, and the client refunds itself from the timeout height.
    static func providerGone(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        // The shortest timeout that still admits erin's invoice (LND's final delta 80) when
        // the provider keeps no route allowance: the refund is mined through 108 blocks,
        // not the default 288.
        let (client, provider, payee) = try setUp(net, clock, providerConfig: ["submarine_timeout_blocks=108",
                                                                               "submarine_route_cltv_blocks=0"])
        guard let erin = payee else { throw Failure("no payee") }
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let pay = try BackgroundCommand(net, node: client, ["pay", erin.name, String(amountSat)], name: "pay")
        try clock.stage("wait for the client's lock, then stop the provider (it never comes back)") { () throws(Failure) in
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let swaps = JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object)
                if swaps.contains(where: { ["lock_broadcast", "lock_confirmed"].contains(JSON.string($0["state"]) ?? "") }) { break }
                usleep(200_000)
            }
            clock.note(provider.stop())
        }
        try clock.stage("mine past the timeout until the client's swap ends refunded") { () throws(Failure) in
            _ = try net.mine(until: "the client's refund", blocks: 400) { () throws(Failure) -> Bool in
                let swaps = JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object)
                return swaps.contains { JSON.string($0["state"]) == "refunded" }
            }
        }
        _ = pay.isRunning
        let after = try net.hub.rpc.balances()
        let spent = savingsBefore - (try client.walletBalance().total)
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        return [
            Check("erin received nothing", got == 0, "+\(formatMsat(got))"),
            Check("the client lost only the lock's and the refund's fees (under 5,000 sat)", spent > 0 && spent < 5_000,
                  "savings fell by \(formatSats(spent))"),
            try CommonChecks.swapsFinal([client, erin], hub: after),
        ] + CommonChecks.conservation(before: before, after: after)
    }
}
