#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An Electrum server that stops following the chain (issue 18's "the server lags several
/// blocks"): a real ElectrumX whose link to the hub's Bitcoin Core is cut, so it keeps
/// answering from an index that no longer moves while the hub mines on and LND follows.
/// The nodes must say the server lags and act on no deadline counted from its stale tip;
/// once the link is back the server catches up and a pay completes.
enum ElectrumLagScenario {
    static let blocksMined = 5
    static let amountSat: Int64 = 25_000

    static let scenario = Scenario(
        name: "electrum-lagging",
        summary: "ElectrumX loses its Bitcoin node and stays \(blocksMined) blocks behind: the nodes say it lags and a pay is "
            + "refused with nothing moved; the link back, the server catches up and the pay completes",
        group: .electrum, body: run)

    static func run(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        try clock.stage("mine 101 blocks") { () throws(Failure) in try net.hub.mine(101) }
        let link = try CuttableLink(to: net.hub.rpc.port)
        defer { link.stop() }
        let server = try clock.stage("start ElectrumX, reaching the hub's RPC through a link the scenario can cut") {
            () throws(Failure) -> ElectrumX in
            let server = try ElectrumX.start(net, daemonPort: link.port)
            _ = try server.connect()
            clock.note("ElectrumX on 127.0.0.1:\(server.port), its daemon through 127.0.0.1:\(link.port)")
            return server
        }
        net.chainConfig = server.nodeConfig(trusted: true)
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        var checks = [try ElectrumNodeScenarios.onElectrumCheck(client, server)]
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().total
        let serverHeight = before.height

        try clock.stage("cut ElectrumX's link to the hub; mine \(blocksMined) blocks") { () throws(Failure) in
            link.cut()
            try net.hub.mine(blocksMined)
        }
        let hubHeight = try net.hub.rpc.balances().height
        // The grace (10 s) plus a reading of LND's height (every 2 s) plus slack.
        let said = try clock.stage("wait until `peernode status` on the client and provA says the server lags") {
            () throws(Failure) -> [String: String] in
            var said: [String: String] = [:]
            let deadline = Date().addingTimeInterval(40)
            while Date() < deadline && said.count < 2 {
                for node in [client, providers[0]] where said[node.name] == nil {
                    let status = try node.must(["status"])
                    if let error = JSON.string(status["chain_error"]), error.contains("lags") { said[node.name] = error }
                }
                usleep(500_000)
            }
            for (name, error) in said.sorted(by: { $0.key < $1.key }) { clock.note("\(name): \(error)") }
            return said
        }
        let stillBehind = try tipOf(server)
        let refusal = try clock.stage("pay carol \(formatSats(amountSat)) while the server lags: must fail") { () throws(Failure) -> ToolResult in
            let result = try client.cli(["pay", carol.name, String(amountSat)], timeout: 120)
            clock.note("exit \(result.status): \(result.failureText)")
            return result
        }
        let during = try net.hub.rpc.balances()
        let lagText = said["client"] ?? ""
        checks += [
            Check("the server stayed behind while cut off", stillBehind == serverHeight,
                  "ElectrumX at \(stillBehind), the hub at \(hubHeight)"),
            Check("`status` on the client and provA says the server lags, with both heights",
                  said.count == 2 && lagText.contains("height \(serverHeight)") && lagText.contains("\(hubHeight)"),
                  said.isEmpty ? "no status named a lag within 40 s" : lagText),
            Check("the pay was refused naming the lag, and nothing was paid or held", refusal.status != 0
                      && refusal.failureText.contains("lags")
                      && during.lightningMsat("client") == before.lightningMsat("client") && during.inFlightMsat == 0,
                  "exit \(refusal.status): \(refusal.failureText); client Lightning \(formatMsat(before.lightningMsat("client"))) -> "
                  + "\(formatMsat(during.lightningMsat("client"))); in flight \(formatMsat(during.inFlightMsat))"),
        ]

        try clock.stage("restore the link; wait for ElectrumX and the nodes to reach the hub's tip") { () throws(Failure) in
            link.restore()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let heights = try [client, providers[0]].map { (node) throws(Failure) in JSON.int(try node.must(["status"])["tip_height"]) }
                if heights.allSatisfy({ $0 == hubHeight }) {
                    clock.note("client and provA at \(hubHeight)")
                    return
                }
                usleep(500_000)
            }
            throw Failure("the nodes did not reach height \(hubHeight) within 60 s of the link's return")
        }
        // Carol's wallet follows the chain through the same server: readable again only now.
        let carolAfterLag = try carol.walletBalance().total
        checks.append(Check("carol received nothing while the server lagged", carolAfterLag == carolBefore,
                            "\(formatSats(carolBefore)) -> \(formatSats(carolAfterLag))"))
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: amountSat, expectProvider: providers[0])
        let after = try net.hub.rpc.balances()
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// ElectrumX's tip height as a wallet sees it.
    private static func tipOf(_ server: ElectrumX) throws(Failure) -> Int64 {
        let line = try server.connect()
        _ = try line.call("server.version", ["peernode-testnet", ["1.4", "1.7"]])
        return JSON.int(JSON.object(try line.call("blockchain.headers.subscribe"))?["height"]) ?? -1
    }
}
