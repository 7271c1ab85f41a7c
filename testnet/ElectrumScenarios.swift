#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A real ElectrumX over the run's hub (issue 18's first step): what a wallet on an
/// Electrum server sees of the hub's chain, mempool and reorgs.
enum ElectrumScenarios {
    static var all: [Scenario] {
        [
            Scenario(name: "electrumx-sync",
                     summary: "a real ElectrumX follows the hub: tip, a payment unconfirmed then confirmed, the raw transaction, a reorg",
                     quick: false, body: electrumxSync),
        ]
    }

    static func electrumxSync(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let rpc = net.hub.rpc
        // 101 blocks: the hub's coinbases mature, so hub_fund can pay from them.
        try clock.stage("mine 101 blocks") { () throws(Failure) in try net.hub.mine(101) }
        let before = try rpc.balances()
        let server = try clock.stage("start ElectrumX over the hub") { () throws(Failure) in try ElectrumX.start(net) }
        let electrum = try clock.stage("connect as a wallet (protocol 1.7)") { () throws(Failure) -> ElectrumLine in
            let line = try server.connect()
            let version = JSON.array(try line.call("server.version", ["peernode-testnet", ["1.4", "1.7"]]))
            clock.note("server.version: \(version)")
            guard JSON.string(version.last) == "1.7" else { throw Failure("ElectrumX 2.0 should speak 1.7, answered \(version)") }
            return line
        }
        var checks: [Check] = []
        checks.append(try tipAgrees(net, electrum, clock, "after ElectrumX's first sync"))

        // A payment from the hub's wallet, left in the mempool.
        let (txid, scriptPubKey) = try clock.stage("hub_fund 50,000 sat, unconfirmed") { () throws(Failure) -> (String, String) in
            let balances = try rpc.balances()
            guard let address = JSON.object(JSON.object(balances.raw["chain"])?["addresses"])?.keys.sorted().first else {
                throw Failure("hub_balances lists no address")
            }
            let fund = JSON.object(try rpc.call("hub_fund", [address, 0.0005, false]))
            guard let txid = JSON.string(fund?["txid"]), let vout = JSON.int(fund?["vout"]) else { throw Failure("hub_fund: no txid") }
            let decoded = JSON.object(try rpc.call("getrawtransaction", [txid, 1]))
            let outputs = JSON.array(decoded?["vout"])
            guard Int(vout) < outputs.count,
                  let script = JSON.string(JSON.object(JSON.object(outputs[Int(vout)])?["scriptPubKey"])?["hex"]) else {
                throw Failure("getrawtransaction \(txid): no scriptPubKey for output \(vout)")
            }
            clock.note("txid \(txid) pays \(address)")
            return (txid, script)
        }
        let inMempool = try waitFor("the payment in the history, unconfirmed", clock) { () throws(Failure) in
            try height(of: txid, in: electrum, scriptPubKey) == 0
        }
        checks.append(Check("ElectrumX shows the payment unconfirmed", inMempool, "\(txid) at height 0 in the scriptPubKey's history"))
        let raw = JSON.string(try electrum.call("blockchain.transaction.get", [txid]))
        let hubRaw = JSON.string(try rpc.call("getrawtransaction", [txid]))
        checks.append(Check("blockchain.transaction.get is the hub's transaction", raw != nil && raw == hubRaw,
                            "\(raw?.count ?? 0) hex characters"))

        // Mined.
        try net.hub.mine(1)
        let confirmedAt = Int(JSON.int(try rpc.call("getblockcount")) ?? -1)
        let confirmed = try waitFor("the payment confirmed at \(confirmedAt)", clock) { () throws(Failure) in
            try height(of: txid, in: electrum, scriptPubKey) == confirmedAt
        }
        checks.append(Check("ElectrumX shows the payment confirmed", confirmed, "\(txid) at height \(confirmedAt)"))
        checks.append(try tipAgrees(net, electrum, clock, "after the block"))

        // A reorg: the payment's block invalidated, the payment held out of two new blocks.
        try clock.stage("reorg: invalidate block \(confirmedAt), hold the payment, mine 2") { () throws(Failure) in
            guard let hash = JSON.string(try rpc.call("getblockhash", [confirmedAt])) else { throw Failure("getblockhash: no hash") }
            _ = try rpc.call("invalidateblock", [hash])
            _ = try rpc.call("hub_hold_transaction", [txid])
            try net.hub.mine(2)
        }
        let unconfirmedAgain = try waitFor("the payment unconfirmed again after the reorg", clock) { () throws(Failure) in
            try height(of: txid, in: electrum, scriptPubKey) == 0
        }
        checks.append(Check("ElectrumX follows the reorg", unconfirmedAgain, "\(txid) back at height 0"))
        checks.append(try tipAgrees(net, electrum, clock, "after the reorg"))

        _ = try rpc.call("hub_release_transaction", [txid])
        try net.hub.mine(1)
        let reconfirmedAt = Int(JSON.int(try rpc.call("getblockcount")) ?? -1)
        let reconfirmed = try waitFor("the payment confirmed again at \(reconfirmedAt)", clock) { () throws(Failure) in
            try height(of: txid, in: electrum, scriptPubKey) == reconfirmedAt
        }
        checks.append(Check("ElectrumX shows the payment confirmed again", reconfirmed, "\(txid) at height \(reconfirmedAt)"))
        // No swap runs here, so of the two common checks only value conservation applies.
        return checks + CommonChecks.conservation(before: before, after: try rpc.balances())
    }

    /// ElectrumX's tip equals the hub's best block, header for header (waits for it).
    private static func tipAgrees(_ net: Testnet, _ electrum: ElectrumLine, _ clock: StageClock,
                                  _ when: String) throws(Failure) -> Check {
        let rpc = net.hub.rpc
        let height = Int(JSON.int(try rpc.call("getblockcount")) ?? -1)
        _ = try waitFor("ElectrumX's tip at \(height) \(when)", clock) { () throws(Failure) in
            JSON.int(JSON.object(try electrum.call("blockchain.headers.subscribe"))?["height"]) == Int64(height)
        }
        let tip = JSON.object(try electrum.call("blockchain.headers.subscribe"))
        guard let best = JSON.string(try rpc.call("getbestblockhash")) else { throw Failure("getbestblockhash: no hash") }
        let header = JSON.string(try rpc.call("getblockheader", [best, false]))
        let agrees = JSON.string(tip?["hex"]) == header && JSON.int(tip?["height"]) == Int64(height)
        return Check("ElectrumX's tip is the hub's \(when)", agrees, "height \(height), block \(best)")
    }

    /// The height of `txid` in the scriptPubKey's history (0: mempool), nil when absent.
    private static func height(of txid: String, in electrum: ElectrumLine, _ scriptPubKey: String) throws(Failure) -> Int? {
        let reply = JSON.object(try electrum.call("blockchain.scriptpubkey.get_history", [scriptPubKey]))
        for entry in JSON.array(reply?["history"]) {
            let item = JSON.object(entry)
            if JSON.string(item?["tx_hash"]) == txid { return JSON.int(item?["height"]).map(Int.init) }
        }
        return nil
    }

    /// Polls every 100 ms for up to 30 s: ElectrumX indexes after its next poll of the hub
    /// (and, after a reorg, its own retries), and that delay is part of the world.
    private static func waitFor(_ description: String, _ clock: StageClock,
                                _ condition: () throws(Failure) -> Bool) throws(Failure) -> Bool {
        let began = Date()
        while Date().timeIntervalSince(began) < 30 {
            if try condition() {
                clock.note("\(description): after \(String(format: "%.1f", Date().timeIntervalSince(began))) s")
                return true
            }
            usleep(100_000)
        }
        clock.note("\(description): not within 30 s")
        return false
    }
}

/// Issue 18's node on Electrum: daemons whose chain backend is the run's ElectrumX
/// (`chain_backend=electrum`), paying and swapping against providers on Electrum or on
/// Bitcoin Core, through a server restart, and refusing a server of another network.
enum ElectrumNodeScenarios {
    static var all: [Scenario] {
        [
            // The one Electrum pay scenario `--all` (make test) runs.
            Scenario(name: "electrum-pay",
                     summary: "every node on ElectrumX (trusted, loopback): pay an on-chain-only contact; exact amounts",
                     group: .other, body: electrumPay),
            Scenario(name: "electrum-mixed",
                     summary: "the provider on Bitcoin Core, the client and carol on an ElectrumX they do not trust: two pays complete",
                     group: .electrum, body: electrumMixed),
            Scenario(name: "electrum-restart",
                     summary: "ElectrumX restarted while the client's pay is under way: the pay completes, nothing lost",
                     group: .electrum, body: electrumRestart),
            Scenario(name: "electrum-wrong-network",
                     summary: "a signet node pointed at the regtest ElectrumX refuses to start, naming electrum_server and the genesis",
                     group: .electrum, body: electrumWrongNetwork),
        ]
    }

    /// ElectrumX over the hub, listening, after 101 blocks (so the hub can fund wallets).
    static func startElectrumX(_ net: Testnet, _ clock: StageClock) throws(Failure) -> ElectrumX {
        try clock.stage("mine 101 blocks") { () throws(Failure) in try net.hub.mine(101) }
        return try clock.stage("start ElectrumX over the hub") { () throws(Failure) -> ElectrumX in
            let server = try ElectrumX.start(net)
            _ = try server.connect()
            clock.note("ElectrumX on 127.0.0.1:\(server.port)")
            return server
        }
    }

    static func electrumPay(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let server = try startElectrumX(net, clock)
        let onElectrum = server.nodeConfig(trusted: true)
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                             config: ["client": onElectrum, "provA": onElectrum, "carol": onElectrum])
        var checks = [try onElectrumCheck(client, server)]
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: 25_000, expectProvider: providers[0])
        return checks
    }

    static func electrumMixed(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let server = try startElectrumX(net, clock)
        // Not trusted: the client waits for the lock's confirmation before claiming.
        let onElectrum = server.nodeConfig(trusted: false)
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                             config: ["client": onElectrum, "carol": onElectrum])
        var checks = [try onElectrumCheck(client, server)]
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: 25_000, expectProvider: providers[0])
        checks += try Scenario.payAndCheck(net, clock, client: client, contact: carol, amountSat: 40_000, expectProvider: providers[0])
        let claimedAtZero = client.logContains("0 of 0 confirmations")
        checks.append(Check("the untrusted client never claimed from an unconfirmed lock", !claimedAtZero,
                            claimedAtZero ? "its log shows a zero-conf verification" : "no zero-conf verification in its log"))
        // E-3: the confirmations it counted came from headers linked to LND's best block.
        let anchored = client.logContains("link to LND's best block")
        checks.append(Check("the untrusted client checked the server's headers against LND", anchored,
                            anchored ? "its log says the server's headers are linked to LND's best block" : "no such line in its log"))
        return checks
    }

    static func electrumRestart(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        var server = try startElectrumX(net, clock)
        let onElectrum = server.nodeConfig(trusted: false)
        let (client, _, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"],
                                                     config: ["client": onElectrum, "carol": onElectrum])
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().confirmed
        let amountSat: Int64 = 30_000
        _ = try net.hub.rpc.call("hub_automine", [1])
        defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
        let pay = try BackgroundCommand(net, node: client, ["pay", carol.name, String(amountSat)], name: "pay")
        defer { pay.stop() }
        let midSwap = try clock.stage("wait for the client's payment to be held, then restart ElectrumX") { () throws(Failure) -> Bool in
            let deadline = Date().addingTimeInterval(120)
            // The client has paid the held invoice and waits for the lock: the moment its
            // chain backend matters most.
            while pay.isRunning && Date() < deadline
                && !(((try? String(contentsOfFile: pay.errPath, encoding: .utf8)) ?? "").contains("payment_in_flight")) {
                usleep(50_000)
            }
            let midSwap = pay.isRunning
            clock.note(net.supervisor.stop(server.process))
            usleep(1_000_000)
            server = try ElectrumX.start(net, port: server.port)
            _ = try server.connect()
            clock.note("ElectrumX back on 127.0.0.1:\(server.port)")
            return midSwap
        }
        try clock.stage("the pay ends") { () throws(Failure) in try pay.wait(timeout: 240) }
        _ = try net.mine(until: "carol receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
            try carol.walletBalance().confirmed >= carolBefore + amountSat
        }
        let after = try net.hub.rpc.balances()
        let received = try carol.walletBalance().confirmed - carolBefore
        var checks = [
            Check("the pay completed across the restart", pay.succeeded, pay.outcome),
            Check("carol received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))"),
            Check("ElectrumX was restarted while the pay was under way", midSwap, "the pay was running when ElectrumX stopped"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    static func electrumWrongNetwork(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let server = try startElectrumX(net, clock)
        let nodes = try net.add([NodeSpec(name: "signet", extraConfig: server.nodeConfig(trusted: false))])
        let node = nodes[0]
        try node.rewriteConfig { $0 == "network=regtest" ? "network=signet" : $0 }
        let ended = try clock.stage("start the signet node: it must refuse the regtest server") { () throws(Failure) -> String in
            try node.launch()
            guard let ended = try node.waitExit(timeout: 60, giveUp: { () throws(Failure) -> Bool in false }) else {
                throw Failure("the signet node kept running against a regtest server")
            }
            clock.note("signet: \(ended)")
            return ended
        }
        let named = node.logContains("electrum_server") && node.logContains("0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")
        return [
            Check("the daemon refused to start", !ended.contains("exit 0") && !ended.contains("status 0"), ended),
            Check("the refusal names electrum_server and the server's genesis", named, "see signet.log"),
        ]
    }

    /// The client's log says it reads the chain from ElectrumX.
    static func onElectrumCheck(_ client: Node, _ server: ElectrumX) throws(Failure) -> Check {
        let url = "electrum://127.0.0.1:\(server.port)"
        return Check("the client reads the chain from ElectrumX", client.logContains("Electrum server at \(url)"), url)
    }
}
