#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What the submarine fault scenarios share: a client holding savings only, one provider
/// running `submarine=1` (its Lightning balance pays the invoices), and payees taking
/// Lightning only, each node configured as the scenario needs; and the readings they check
/// (both ends' records of a swap, the provider's Lightning sends, a refund's fee and block).
struct SubmarineFaultNet {
    let client: Node
    let provider: Node
    let payees: [Node]

    var erin: Node { payees[0] }

    /// What a scenario changes in the common network.
    struct Options {
        /// Extra config lines of the provider (its confirmations, its quote lifetime).
        var provider: [String] = []
        /// Extra config lines of every node (a client's finality at mainnet pace).
        var everyone: [String] = []
        /// Added to every daemon's environment (`PEERNODE_TEST_CLOCK=hub`).
        var environment: [String: String] = [:]
        /// Added to the client daemon's environment (`PEERNODE_TEST_SUBMARINE_LOCK`).
        var clientEnvironment: [String: String] = [:]
        /// The payees (Lightning only) and their extra config lines; each saves the client.
        var payees: [(String, [String])] = [("erin", [])]
        /// The client's savings, in this many coins (a wallet locks confirmed coins only, so
        /// swaps at once need a coin each).
        var savingsSat: Int64 = SubmarineScenarios.savingsSat
        var coins = 1
        var providerLightningSat: Int64 = DemoSavingsJourney.providerLightningSat
    }

    static func setUp(_ net: Testnet, _ clock: StageClock, _ options: Options = Options()) throws(Failure) -> SubmarineFaultNet {
        let submarine = DemoSavingsJourney.submarineConfig(baseFeeSat: 300, feePPM: 1_000)
        var specs = [NodeSpec(name: "client", extraConfig: options.everyone,
                              environment: options.environment.merging(options.clientEnvironment) { $1 }),
                     NodeSpec(name: "provA", lightningSat: options.providerLightningSat, provider: true, baseFeeSat: 300,
                              feePPM: 1_000, extraConfig: submarine + options.provider + options.everyone,
                              environment: options.environment)]
        specs += options.payees.map {
            NodeSpec(name: $0.0, extraConfig: ["accept_onchain=0"] + $0.1 + options.everyone, environment: options.environment)
        }
        let nodes = try clock.stage("create and start \(specs.count) nodes") { () throws(Failure) -> [Node] in
            let nodes = try net.add(specs)
            try net.start(nodes)
            return nodes
        }
        let network = SubmarineFaultNet(client: nodes[0], provider: nodes[1], payees: Array(nodes.dropFirst(2)))
        let perCoin = options.savingsSat / Int64(options.coins)
        try clock.stage("fund the client's savings (\(options.coins) x \(formatSats(perCoin)))") { () throws(Failure) in
            try net.fund([network.client], sats: perCoin, coins: options.coins)
        }
        try clock.stage("save the contacts") { () throws(Failure) in
            try network.client.saveContact(network.provider)
            for payee in network.payees {
                try network.client.saveContact(payee)
                try payee.saveContact(network.client)
            }
        }
        return network
    }

    /// Where the faults start: the network, the balances before, the client's savings
    /// before, and `pay erin 25000` (with `payOptions`) running in the background, no block
    /// mined yet.
    struct PayUnderway {
        let network: SubmarineFaultNet
        let before: HubBalances
        let savingsBefore: Int64
        let pay: BackgroundCommand
    }

    static func payUnderway(_ net: Testnet, _ clock: StageClock, _ options: Options = Options(),
                            payOptions: [String] = []) throws(Failure) -> PayUnderway {
        let network = try setUp(net, clock, options)
        let before = try net.hub.rpc.balances()
        let savingsBefore = try network.client.walletBalance().total
        let pay = try SubmarineFaultScenarios.startPay(net, clock, network.client, network.erin, options: payOptions)
        return PayUnderway(network: network, before: before, savingsBefore: savingsBefore, pay: pay)
    }

    // MARK: readings

    /// The client's and the provider's swap rows (`swaps`).
    static func rows(_ node: Node) throws(Failure) -> [[String: Any]] {
        JSON.array(try node.must(["swaps", "--limit", "10000"])["swaps"]).compactMap(JSON.object)
    }

    static func states(_ node: Node) throws(Failure) -> [String] {
        try rows(node).compactMap { JSON.string($0["state"]) }
    }

    /// The provider's record of the client's swap `clientID` (`sub-<quote id>` is the
    /// provider's `<quote id>`).
    static func providerID(of clientID: String) -> String {
        clientID.hasPrefix("sub-") ? String(clientID.dropFirst(4)) : clientID
    }

    /// `swap show`: the contract (`swap.contract`) and the last event's data.
    static func shown(_ node: Node, _ id: String) throws(Failure) -> (contract: [String: Any], last: [String: Any], kinds: [String]) {
        let json = try node.must(["swap", "show", id])
        let events = JSON.array(json["events"]).compactMap(JSON.object)
        return (JSON.object(JSON.object(json["swap"])?["contract"]) ?? [:], JSON.object(events.last?["data"]) ?? [:],
                events.compactMap { JSON.string($0["kind"]) })
    }

    /// The client asks for the refund the provider offered: waits for its broadcast, mines
    /// until it is confirmed, then until both swaps are final, and for `pay` to end.
    static func takeCooperativeRefund(_ net: Testnet, _ clock: StageClock, _ client: Node, _ provider: Node, id: String,
                                      pay: BackgroundCommand) throws(Failure) {
        try clock.stage("the client asks for the offered cooperative refund; mine until it confirms") { () throws(Failure) in
            try wait("the client's refund broadcast") { () throws(Failure) -> Bool in
                try shown(client, id).kinds.contains("refund_broadcast")
            }
            _ = try net.mine(until: "the client's refund", blocks: 6) { () throws(Failure) -> Bool in
                try shown(client, id).kinds.last == "refunded"
            }
        }
        try SubmarineScenarios.mineUntilFinal(net, [client, provider], blocks: 10)
        try pay.wait(timeout: 30)
    }

    /// The timeout height of a swap, from the provider's signed accept.
    static func timeoutHeight(_ provider: Node, _ providerID: String) throws(Failure) -> Int64 {
        let contract = try shown(provider, providerID).contract
        guard let height = JSON.int(JSON.find(["timeout_height"], in: contract["accept"])) else {
            throw Failure("the provider's record of \(providerID) names no timeout_height")
        }
        return height
    }

    /// How many `/v2/router/send` the provider's LND had: every payment it ever tried
    /// (`hub_ln_fault <node> clear` sets no fault and answers the count).
    static func sends(_ net: Testnet, _ provider: Node) throws(Failure) -> Int64 {
        JSON.int(JSON.object(try net.hub.rpc.call("hub_ln_fault", [provider.name, "clear"]))?["send_requests"]) ?? -1
    }

    static func tip(_ net: Testnet) throws(Failure) -> Int64 {
        guard let height = JSON.int(try net.hub.rpc.call("getblockcount")) else { throw Failure("getblockcount: no height") }
        return height
    }

    /// Mines up to `height` in one call (the nodes then catch up on a tip many blocks on).
    static func mine(to height: Int64, _ net: Testnet) throws(Failure) {
        let now = try tip(net)
        if height > now { try net.hub.mine(Int(height - now)) }
    }

    static func mempool(_ net: Testnet) throws(Failure) -> [String] {
        JSON.array(try net.hub.rpc.call("getrawmempool")).compactMap(JSON.string)
    }

    /// Polls `done` every 200 ms for at most `timeout` seconds.
    static func wait(_ what: String, timeout: TimeInterval = 30, _ done: () throws(Failure) -> Bool) throws(Failure) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try done() { return }
            usleep(200_000)
        }
        throw Failure("\(what): not within \(Int(timeout)) s")
    }

    /// Waits until the client's only swap has its lock in the mempool; the swap id and lock txid.
    static func waitForLock(_ net: Testnet, _ client: Node, pay: BackgroundCommand, count: Int = 1) throws(Failure) -> [(String, String)] {
        var found: [(String, String)] = []
        try wait("\(count) lock(s) of the client in the mempool", timeout: 60) { () throws(Failure) -> Bool in
            if !pay.isRunning { throw Failure("`pay` ended before its lock was broadcast: \(pay.outcome)") }
            let mempool = Set(try mempool(net))
            found = []
            for row in try rows(client) where JSON.string(row["state"]) == "lock_broadcast" {
                guard let id = JSON.string(row["id"]),
                      let txid = JSON.string(JSON.object(try shown(client, id).last["lock"])?["txid"]), mempool.contains(txid) else { continue }
                found.append((id, txid))
            }
            return found.count >= count
        }
        return found
    }

    /// A transaction's block height: nil while unconfirmed, or when the hub has it nowhere
    /// (a refund version its bump replaced).
    static func confirmation(_ net: Testnet, _ txid: String) throws(Failure) -> Int64? {
        guard case .success(let found) = net.hub.rpc.callResult("getrawtransaction", [txid, true]) else { return nil }
        let tx = JSON.object(found)
        guard (JSON.int(tx?["confirmations"]) ?? 0) > 0, let hash = JSON.string(tx?["blockhash"]) else { return nil }
        return JSON.int(JSON.object(try net.hub.rpc.call("getblockheader", [hash]))?["height"])
    }

    /// The client's refund that confirmed: its txid, height and fee (the lock's value less
    /// what it pays out).
    static func refund(_ net: Testnet, _ client: Node, _ id: String) throws(Failure) -> (txid: String, height: Int64, feeSat: Int64) {
        let last = try shown(client, id).last
        let lockValue = JSON.int(JSON.object(last["lock"])?["value_sat"]) ?? 0
        for txid in JSON.array(last["refund_txids"]).compactMap(JSON.string) {
            guard let height = try confirmation(net, txid) else { continue }
            let tx = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true]))
            let paid = JSON.array(tx?["vout"]).compactMap { JSON.sats(btc: JSON.object($0)?["value"]) }.reduce(0, +)
            return (txid, height, lockValue - paid)
        }
        throw Failure("no confirmed refund of the client's swap \(id): \(JSON.line(last["refund_txids"]))")
    }

    /// The lock's fee, as the client recorded it at `lock_intent`.
    static func lockFee(_ client: Node, _ id: String) throws(Failure) -> Int64 {
        guard let fee = try client.swapEvents(id).compactMap({ JSON.int($0["lock_fee_sat"]) }).first else {
            throw Failure("the client's swap \(id) recorded no lock_fee_sat")
        }
        return fee
    }

    /// Both ends ended as a pair that agrees on where the money is: the client's final
    /// state and the provider's, for each of the client's swaps.
    static func agreement(_ client: Node, _ provider: Node, expected: [String: Set<String>]) throws(Failure) -> Check {
        let providerStates = Dictionary(try rows(provider).compactMap { row -> (String, String)? in
            guard let id = JSON.string(row["id"]), let state = JSON.string(row["state"]) else { return nil }
            return (id, state)
        }) { first, _ in first }
        var pairs: [String] = []
        var wrong: [String] = []
        for row in try rows(client) {
            let id = JSON.string(row["id"]) ?? "?"
            let state = JSON.string(row["state"]) ?? "?"
            let theirs = providerStates[providerID(of: id)] ?? "none"
            pairs.append("\(state)/\(theirs)")
            if !(expected[state]?.contains(theirs) ?? false) { wrong.append("\(id): client \(state), provider \(theirs)") }
        }
        return Check("both ends agree on each swap's end", wrong.isEmpty && !pairs.isEmpty,
                     "client/provider: " + pairs.joined(separator: ", ") + (wrong.isEmpty ? "" : "; not agreed: " + wrong.joined(separator: "; ")))
    }

    /// What every submarine scenario ends with: both ends' agreement, every swap final, value conserved.
    static func closing(_ net: Testnet, _ network: SubmarineFaultNet, before: HubBalances,
                        expected: [String: Set<String>]) throws(Failure) -> [Check] {
        let after = try net.hub.rpc.balances()
        return [try agreement(network.client, network.provider, expected: expected),
                try CommonChecks.swapsFinal(net.nodes, hub: after)]
            + CommonChecks.conservation(before: before, after: after)
    }

    /// The end states of a paid swap, and of a refunded one.
    static let paid: [String: Set<String>] = ["completed": ["claimed"]]
    static let refunded: [String: Set<String>] = ["refunded": ["lock_mismatch", "abandoned", "released"]]
}
