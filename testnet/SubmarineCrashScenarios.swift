#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `kill -9` of the client or the provider at every state each persists in a submarine
/// swap (issue 16): the client, with savings only, pays erin, who takes Lightning only,
/// through a provider running `submarine=1`. The daemon kills itself right after the state
/// is durable (`PEERNODE_TEST_CRASH_AFTER=<role>:onchain_to_ln:<state>`, CrashPoint.swift),
/// is restarted on the same data directory, and the run proves: the swap ends as that
/// state must end (paid, refunded, or nothing locked), every swap is final and agreed,
/// value is conserved, erin got exactly X or nothing, the provider's LND was asked to pay
/// at most once (never again after a crash between `payment_intent` and the send), the
/// client funded at most one lock and lost nothing beyond the fees, and each node's books
/// agree with its balances.
enum SubmarineCrashScenarios {
    static let amountSat: Int64 = 25_000

    /// The hub's clock runs 10 simulated seconds per real second and every node follows it
    /// (`PEERNODE_TEST_CLOCK=hub`), so the nodes' chain followers poll every 200 ms instead of
    /// every 2 s (their poll stands for "2 s of the node's clock"): each step of the swap is
    /// seen 10 times sooner. The swap's deadlines count blocks, which the runner mines; the
    /// invoice's hour and the quotes' lifetimes pass 10 times faster and still hold for the
    /// few real seconds a swap takes.
    static let clockRate = 10
    static let followerPoll = 2.0 / Double(clockRate)

    /// The client's states a submarine pay writes, in order (SubmarineClientPhase): with
    /// cooperative claims (musig2, the default) it records `coop_signed` when it co-signs
    /// the provider's key-path claim.
    static let clientStates = ["quoted", "accepted", "lock_intent", "lock_broadcast", "lock_confirmed", "coop_signed", "paid",
                               "completed"]
    /// The provider's (SubmarineProviderState.Kind): `coop_requested` before it asks the
    /// client to co-sign, `claim_broadcast` with the key-path claim.
    static let providerStates = ["accepted", "lock_seen", "lock_confirmed", "payment_intent", "payment_in_flight", "paid",
                                 "coop_requested", "claim_broadcast", "claimed"]
    /// The states of a pay whose invoice cannot be paid (`failingPayment`): the provider
    /// offers a cooperative refund and co-signs it (`coop_refund_signed`), the client
    /// records its round (`coop_refund_requested`) and broadcasts the key-path refund, and
    /// the provider lets the lock go.
    static let clientRefundStates = ["coop_refund_requested", "refund_broadcast", "refunded"]
    static let providerRefundStates = ["payment_failed", "coop_refund_signed", "released"]

    /// How a pay ends.
    enum Outcome: String {
        /// erin got X, the provider claimed the lock.
        case paid
        /// Nothing reached erin; the client's lock came back by its refund.
        case refunded
        /// The client never locked anything.
        case nothingLocked = "nothing locked"
    }

    /// A provider config and what a crash in it must end in.
    struct Flow: Sendable {
        var providerConfig: [String] = []
        var what = ""
        var outcome: @Sendable (_ role: String, _ state: String) -> Outcome
    }

    /// The plain pay (the provider's default 288-block timeout). A crash before the client's
    /// lock is funded leaves nothing locked: the client drops a swap it has not funded (the
    /// request never left at `quoted`; at `accepted` the funding was at most signed), and
    /// a provider that stored its accept but died before sending it leaves the client with
    /// no answer. A provider that dies between `payment_intent` and the send never sends it
    /// after the restart (the intent cannot tell whether LND had it; LND says it has not):
    /// the client refunds.
    static let pay = Flow { role, state in
        switch (role, state) {
        case ("client", "quoted"), ("client", "accepted"), ("provider", "accepted"): return .nothingLocked
        case ("provider", "payment_intent"): return .refunded
        default: return .paid
        }
    }

    /// A pay whose invoice cannot be paid under the provider's CLTV bound: a provider that
    /// keeps no route allowance (`submarine_route_cltv_blocks=0`, as if its payees were its
    /// direct peers) admits erin's invoice (final delta 80) with a 108-block timeout, the
    /// shortest that admits it (1 + 12 of wait + 12 + 3 + 80), so the blocks mined through it
    /// are few. At pay time `cltv_limit` is 108 − 1 − 12 = 95, which passes the provider's
    /// own check (80 + LND's padding 3) but not the route's whole delta (the hub's hop adds
    /// 40: 123), so LND fails the payment and the client refunds (cooperatively, through the key
    /// path, once the provider tracked the failure; else at the timeout).
    static let failingPayment = Flow(providerConfig: ["submarine_timeout_blocks=108", "submarine_route_cltv_blocks=0"],
                                     what: " (the payment fails: no route under cltv_limit; the client refunds)") { _, _ in .refunded }

    static var all: [Scenario] {
        let plain = clientStates.map { ("client", $0, pay) } + providerStates.map { ("provider", $0, pay) }
        let failing = clientRefundStates.map { ("client", $0, failingPayment) } + providerRefundStates.map { ("provider", $0, failingPayment) }
        return (plain + failing).map { role, state, flow in
            Scenario(name: "crash-sub-\(role)-\(state)",
                     summary: "submarine pay: kill -9 of the \(role) right after it stored \(state)\(flow.what); restart",
                     group: .crash, hubArguments: ["--clock-rate", String(clockRate)]) { net, clock throws(Failure) in try run(net, clock, crashing: role, state: state, flow: flow) }
        }
    }

    static func run(_ net: Testnet, _ clock: StageClock, crashing role: String, state: String, flow: Flow) throws(Failure) -> [Check] {
        let point = "\(role):onchain_to_ln:\(state)"
        // Every node starts armed, which spares a restart: a point names a role, and each
        // node here runs swaps of one role only (erin none), so only the victim can reach it.
        let (client, provider, payee) = try SubmarineScenarios.setUp(
            net, clock, providerConfig: flow.providerConfig,
            environment: PaceScenarios.followHub.merging([CrashScenarios.crashAfterKey: point]) { $1 })
        guard let erin = payee else { throw Failure("no payee") }
        let victim = role == "client" ? client : provider
        let expected = flow.outcome(role, state)
        try CrashScenarios.waitArmed(victim, point)
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let sendsBefore = try sendRequests(net, provider)
        let miner = SubmarineMiner(net: net, client: client, provider: provider, followerPoll: followerPoll)
        let pay = try BackgroundCommand(net, node: client, ["pay", erin.name, String(amountSat)], name: "pay")
        defer { pay.stop() }

        let death = try clock.stage("pay erin \(formatSats(amountSat)) from savings; wait for \(victim.name) to die at \(state)") {
            () throws(Failure) -> String in
            var payEnded: Date?
            let ended = try victim.waitExit(timeout: 180) { () throws(Failure) -> Bool in
                try miner.tick()
                if pay.isRunning { return false }
                let since = payEnded ?? Date()
                payEnded = since
                // The pay is over: the point may still come (a refund's depth), but not once every swap is final.
                return Date().timeIntervalSince(since) > 60 || (miner.allFinal && Date().timeIntervalSince(since) > 5)
            }
            guard let ended else {
                throw Failure("`pay` ended (\(pay.outcome)) and \(victim.name) never reached \(point); swaps: \(miner.states)")
            }
            clock.note("\(victim.name) ended: \(ended) (\(miner.mined) block(s) mined)")
            return ended
        }
        let reached = victim.logContains("crash point \(point) reached")
        try clock.stage("restart \(victim.name) without the crash point, same data directory") { () throws(Failure) in
            // Its peer port as before (its contact saved it); an empty variable arms nothing.
            try victim.pinListenAddress()
            try victim.launch(environment: [CrashScenarios.crashAfterKey: ""])
            try victim.waitReady()
        }
        let minedBefore = miner.mined
        try clock.stage("mine as the swap needs until every swap is final and `pay` ended") { () throws(Failure) in
            let deadline = Date().addingTimeInterval(180)
            var last = ""
            while Date() < deadline {
                try miner.tick()
                if !pay.isRunning && miner.allFinal {
                    let check = try CommonChecks.swapsFinal(net.nodes, hub: try net.hub.rpc.balances())
                    if check.passed { return }
                    last = check.detail
                }
                usleep(50_000)
            }
            throw Failure("not every swap ended within 180 s: \(miner.states) \(last); pay: \(pay.outcome)")
        }
        clock.note("mined \(miner.mined - minedBefore) block(s) after the restart; pay: \(pay.outcome)")
        if expected == .paid { net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap") }

        let after = try net.hub.rpc.balances()
        var checks = [Check("\(victim.name) died of SIGKILL at \(point)", death == "signal \(SIGKILL)" && reached,
                            "\(death); crash line in \(victim.name).log: \(reached)")]
        // Read once for every check below: each CLI call is a process.
        let clientSwaps = JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object)
        let providerSwaps = JSON.array(try provider.must(["swaps"])["swaps"]).compactMap(JSON.object)
        guard clientSwaps.count == 1, let id = JSON.string(clientSwaps[0]["id"]) else {
            throw Failure("the client holds \(clientSwaps.count) swaps, not 1")
        }
        let show = try client.must(["swap", "show", id])
        checks.append(endStates(client: show, providerSwaps, expected))
        let received = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let wanted = expected == .paid ? amountSat * 1_000 : 0
        checks.append(Check("erin received \(expected == .paid ? "exactly " + formatSats(amountSat) : "nothing")", received == wanted,
                            "+\(formatMsat(received))"))
        checks.append(try sendsCheck(net, provider, since: sendsBefore, expected: expected, state: role == "provider" ? state : nil))
        checks += try clock.stage("read the lock's fundings and spend from the blocks since the pay") { () throws(Failure) -> [Check] in
            try lockChecks(net, show, expected: expected, drop: savingsBefore - (try client.walletBalance().total), since: before.height)
        }
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        checks += try clock.stage("read each node's books and cooperative rounds") { () throws(Failure) -> [Check] in
            try AccountingCheck.run([client, provider], net: net)
                + CoopAudit.checks(net, client: client, provider: provider, since: before.height)
        }
        return checks
    }

    // MARK: checks

    /// The client's one swap (`show`: `swap show`) and the provider's (none when the
    /// request never reached it) ended as `expected` says.
    static func endStates(client show: [String: Any], _ providerSwaps: [[String: Any]], _ expected: Outcome) -> Check {
        let wanted: (client: Set<String>, provider: Set<String>)
        switch expected {
        case .paid: wanted = (["completed"], ["claimed"])
        case .refunded: wanted = (["refunded"], ["released"])
        case .nothingLocked: wanted = (["abandoned"], ["abandoned", "none"])
        }
        let last = JSON.array(show["events"]).compactMap(JSON.object).last
        let clientState = JSON.string(last?["kind"]) ?? "?"
        let reason = JSON.string(JSON.object(JSON.object(last?["data"])?["outcome"])?["reason"])
        let providerState = providerSwaps.count == 1 ? JSON.string(providerSwaps[0]["state"]) ?? "?"
            : providerSwaps.isEmpty ? "none" : "\(providerSwaps.count) swaps"
        return Check("\(expected.rawValue): the client's one swap ended \(wanted.client.sorted().joined(separator: "|")), the provider's "
                         + wanted.provider.sorted().joined(separator: "|"),
                     wanted.client.contains(clientState) && wanted.provider.contains(providerState),
                     "client \(clientState)" + (reason.map { " (\($0))" } ?? "") + "; provider \(providerState)")
    }

    /// `/v2/router/send` requests the provider's LND has seen, by payment hash.
    static func sendRequests(_ net: Testnet, _ provider: Node) throws(Failure) -> [String: Int64] {
        let counts = try LNDScenarios.fault(net, provider.name, "clear")
        return (JSON.object(counts["send_requests_by_hash"]) ?? [:]).mapValues { JSON.int($0) ?? -1 }
    }

    /// The provider asked its LND to pay at most once: exactly once when erin was paid,
    /// never when nothing was locked or the crash came between `payment_intent` and the send.
    static func sendsCheck(_ net: Testnet, _ provider: Node, since before: [String: Int64], expected: Outcome,
                           state: String?) throws(Failure) -> Check {
        var fresh: [String: Int64] = [:]
        for (hash, count) in try sendRequests(net, provider) where count != before[hash] ?? 0 {
            fresh[hash] = count - (before[hash] ?? 0)
        }
        let total = fresh.values.reduce(0, +)
        let allowed: ClosedRange<Int64>
        switch expected {
        case .paid: allowed = 1...1
        case .nothingLocked: allowed = 0...0
        case .refunded: allowed = state == "payment_intent" ? 0...0 : 0...1
        }
        let detail = fresh.isEmpty ? "none" : fresh.map { "\($0.key.prefix(16))…: \($0.value)" }.joined(separator: ", ")
        return Check("the provider's LND was asked to pay \(allowed.lowerBound == allowed.upperBound ? "exactly \(allowed.lowerBound)" : "at most \(allowed.upperBound)") "
                         + "time(s), for one hash at most", fresh.count <= 1 && allowed.contains(total), "/v2/router/send by hash: \(detail)")
    }

    /// The client (its swap as `swap show` tells it) funded at most one lock (exactly one
    /// unless nothing was locked), and its savings fell by `drop`, exactly what the outcome costs: the quote's total plus the lock's
    /// fee when paid, the lock's and the refund's fees when refunded, nothing otherwise.
    static func lockChecks(_ net: Testnet, _ show: [String: Any], expected: Outcome, drop: Int64,
                           since height: Int64) throws(Failure) -> [Check] {
        let events = JSON.array(show["events"]).compactMap(JSON.object)
        let intent = events.last { JSON.string($0["kind"]) == "lock_intent" }.flatMap { JSON.object($0["data"]) }
        guard let intent else {
            return [Check("no lock recorded, and the savings are untouched", expected == .nothingLocked && drop == 0,
                          "savings fell by \(formatSats(drop))")]
        }
        let lock = JSON.object(intent["lock"])
        let quote = JSON.object(JSON.object(JSON.object(show["swap"])?["contract"])?["quote"])
        guard let txid = JSON.string(lock?["txid"]), let vout = JSON.int(lock?["vout"]), let value = JSON.int(lock?["value_sat"]),
              let fee = JSON.int(intent["lock_fee_sat"]), let total = JSON.int(quote?["total_sat"]) else {
            throw Failure("the client's lock_intent or quote lacks a field: \(JSON.line(intent))")
        }
        let chain = try LockChain.read(net, lock: txid, vout: vout, since: height)
        var checks = [Check("the client funded exactly one lock (\(formatSats(total)), the quote's total)",
                            chain.fundings.count == 1 && value == total,
                            "transactions paying the contract since height \(height): \(chain.fundings.count); lock \(formatSats(value))")]
        switch expected {
        case .paid:
            checks.append(Check("the savings fell by exactly the lock (the quote's total) + its fee", drop == total + fee,
                                "-\(formatSats(drop)) = lock \(formatSats(total)) + fee \(formatSats(fee))?"))
        case .refunded:
            let refundFee = chain.spendFee ?? -1
            checks.append(Check("the savings fell by exactly the lock's fee + the refund's fee", drop == fee + refundFee && refundFee > 0,
                                "-\(formatSats(drop)) = lock fee \(formatSats(fee)) + refund fee \(formatSats(refundFee))?"))
        case .nothingLocked:
            checks.append(Check("nothing was locked", false, "a lock was recorded: \(txid)"))
        }
        return checks
    }
}

/// What the chain holds of a lock since a height: every transaction paying its script, and
/// the fee of the one spending it (the lock's value less the spend's outputs).
struct LockChain {
    var fundings: Set<String> = []
    var spendFee: Int64?

    static func read(_ net: Testnet, lock txid: String, vout: Int64, since height: Int64) throws(Failure) -> LockChain {
        let funding = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true]))
        let output = JSON.array(funding?["vout"]).compactMap(JSON.object).first { JSON.int($0["n"]) == vout }
        guard let script = JSON.string(JSON.object(output?["scriptPubKey"])?["hex"]), let value = JSON.sats(btc: output?["value"]) else {
            throw Failure("the lock \(txid):\(vout) is not on chain")
        }
        var found = LockChain()
        let tip = try net.hub.rpc.balances().height
        // Two batches, not two calls a block: a refund flow mines some 200 blocks.
        let hashes = try net.hub.rpc.batch(((height + 1)...max(height + 1, tip)).map { ("getblockhash", [$0]) }).compactMap(JSON.string)
        for block in try net.hub.rpc.batch(hashes.map { ("getblock", [$0, 2]) }) {
            for tx in JSON.array(JSON.object(block)?["tx"]).compactMap(JSON.object) {
                let outputs = JSON.array(tx["vout"]).compactMap(JSON.object)
                if outputs.contains(where: { JSON.string(JSON.object($0["scriptPubKey"])?["hex"]) == script }) {
                    found.fundings.insert(JSON.string(tx["txid"]) ?? "?")
                }
                let spends = JSON.array(tx["vin"]).compactMap(JSON.object)
                    .contains { JSON.string($0["txid"]) == txid && JSON.int($0["vout"]) == vout }
                if spends { found.spendFee = value - outputs.reduce(0) { $0 + (JSON.sats(btc: $1["value"]) ?? 0) } }
            }
        }
        return found
    }
}
