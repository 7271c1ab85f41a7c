#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The Core scenarios that matter most to a node's chain backend, run unchanged with every
/// node on a real ElectrumX (issue 18): the same bodies (kill -9 after the lock and after
/// the claim is broadcast, a reorg under the lock, a fee jump during the claim, a client
/// that never claims, a short lock), so each ends with the same "final and agreed" and
/// "value conserved" checks. Only the chain the daemons read differs: `Testnet.chainConfig`
/// gives every node `chain_backend=electrum` before the body creates them.
enum ElectrumVariants {
    /// The Core scenarios run on Electrum, by name. The crash points are the two moments a
    /// chain backend decides the outcome: the lock on chain and not yet claimed, the claim
    /// broadcast and not yet confirmed.
    static let coreNames = [
        "crash-client-lock_seen", "crash-provider-lock_broadcast",
        "crash-client-claim_broadcast", "crash-provider-claim_observed",
        "reorg", "fee-jump", "never-claims", "never-claims-after-round", "short-lock",
    ]

    /// The variants `--all` (make test) runs, 7 s and 12 s; the others are in the `electrum` set.
    static let inMakeTest: Set<String> = ["crash-client-lock_seen", "reorg"]

    static var all: [Scenario] {
        let core = CrashScenarios.all + ChainScenarios.all + AdversaryScenarios.all
        return coreNames.compactMap { name in core.first { $0.name == name } }.map { scenario in
            onElectrum(scenario, group: inMakeTest.contains(scenario.name) ? .other : .electrum)
        } + [
            Scenario(name: "electrum-recover-refused",
                     summary: "a client on ElectrumX pays, then `recover` is refused naming whole blocks and chain_backend=bitcoind; "
                         + "its swap is untouched", group: .electrum, body: recoverRefused),
        ]
    }

    /// `scenario` with ElectrumX started over the hub first and every node on it (trusted,
    /// as a node on its own loopback server would be: the flow is the Core one, zero-conf
    /// claims included), plus a check that the client really read the chain from it.
    static func onElectrum(_ scenario: Scenario, group: ScenarioSet) -> Scenario {
        Scenario(name: "electrum-\(scenario.name)", summary: "on ElectrumX: \(scenario.summary)", group: group,
                 hubArguments: scenario.hubArguments) { net, clock throws(Failure) in
            let server = try ElectrumNodeScenarios.startElectrumX(net, clock)
            net.chainConfig = server.nodeConfig(trusted: true)
            let checks = try scenario.body(net, clock)
            guard let client = net.node("client") else { throw Failure("the scenario made no node named client") }
            return [try ElectrumNodeScenarios.onElectrumCheck(client, server)] + checks
        }
    }

    /// `peernode recover` needs whole blocks: on Electrum it is refused with that reason
    /// and what to do instead, and changes nothing.
    static func recoverRefused(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let server = try ElectrumNodeScenarios.startElectrumX(net, clock)
        net.chainConfig = server.nodeConfig(trusted: true)
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        var checks = [try ElectrumNodeScenarios.onElectrumCheck(client, server)]
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: 25_000, expectProvider: providers[0])
        let swapsBefore = try client.swapList()
        let before = try net.hub.rpc.balances()
        let refusal = try clock.stage("`peernode recover --from-height 0` on the client: must be refused") { () throws(Failure) -> ToolResult in
            let result = try client.cli(["recover", "--from-height", "0"], timeout: 60)
            clock.note("exit \(result.status): \(result.failureText)")
            return result
        }
        let swapsAfter = try client.swapList()
        let after = try net.hub.rpc.balances()
        let text = refusal.failureText
        checks += [
            Check("recover is refused, naming whole blocks, Electrum and chain_backend=bitcoind",
                  refusal.status != 0 && text.contains("whole blocks") && text.contains("Electrum") && text.contains("chain_backend=bitcoind"),
                  "exit \(refusal.status): \(text)"),
            Check("the client's swaps are untouched", swapsAfter.map { "\($0.id) \($0.state)" } == swapsBefore.map { "\($0.id) \($0.state)" },
                  swapsAfter.map { "\($0.id) \($0.state)" }.joined(separator: "; ")),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }
}
