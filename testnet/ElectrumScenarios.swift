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
