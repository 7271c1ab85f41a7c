#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A client that cheats on purpose (the fund-safety audit's C-1, C-2 and H-2, docs/HTLC.md
/// "Threats"): `peernode-adversary` plays the hostile client against one funded provider
/// daemon, and everything is checked from the outside, as with the other scenarios: the
/// hub's chain and Lightning books, the provider's `swaps` and `swap show`, the kit's report.
enum HostileClientScenarios {
    static let amountSat: Int64 = 25_000
    static let kitLightningSat: Int64 = 500_000
    /// The provider's states once its lock is out, and once its refund is.
    static let lockedStates: Set<String> = ["lock_broadcast", "lock_confirmed"]
    static let refundStates: Set<String> = ["refund_intent", "refund_broadcast", "claim_pending", "refunded"]

    static var all: [Scenario] {
        [
            Scenario(name: "hostile-retired-p2wsh", summary: "a client asks for the retired p2wsh contract (C-1): refused with a "
                         + "reason naming p2wsh_v2; no swap, nothing moves", group: .other, body: retiredP2WSH),
            Scenario(name: "hostile-annex-claim", summary: "a client claims a taproot lock with an annexed witness a miner takes "
                         + "out of band (C-2): the provider reads the preimage from it and is paid", group: .other) { net, clock throws(Failure) in
                try forgedClaim(net, clock, attack: "annex-claim", refusal: "bad-witness-nonstandard",
                                shape: "an annex as its last witness item") { witness in
                    witness.count == 5 && witness.last?.hasPrefix("50") == true
                }
            },
            Scenario(name: "hostile-nonminimal-claim", summary: "a client claims a p2wsh_v2 lock selecting OP_IF with 0x02, mined "
                         + "out of band (C-2): the provider reads the preimage from it and is paid", group: .other) { net, clock throws(Failure) in
                try forgedClaim(net, clock, attack: "nonminimal-claim", refusal: "OP_IF/NOTIF argument must be minimal",
                                shape: "selector 0x02") { witness in
                    witness.count == 4 && witness[2] == "02"
                }
            },
            Scenario(name: "hostile-push-after-refund", summary: "a client never claims and pushes the preimage once the "
                         + "provider's refund is out (H-2): no settle, the refund confirms, the payment returns", group: .other,
                     body: pushAfterRefund),
        ]
    }

    // MARK: - scenarios

    static func retiredP2WSH(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (provider, kit) = try setUp(net, clock)
        let before = try net.hub.rpc.balances()
        let walletBefore = try provider.walletBalance().total
        let outcome = try clock.stage("peernode-adversary --attack retired-p2wsh") { () throws(Failure) -> KitOutcome in
            let outcome = try kit.run("retired-p2wsh", against: provider, amountSat: amountSat, clock: clock)
            clock.note(outcome.line)
            return outcome
        }
        try net.hub.mine(1)
        usleep(1_200_000)
        let after = try net.hub.rpc.balances()
        let walletAfter = try provider.walletBalance().total
        let swaps = try provider.swapList()
        let reason = outcome.string("reason") ?? ""
        var checks = [
            ranCheck(outcome),
            Check("the SwapRequest for p2wsh is refused: invalid_request, a reason naming p2wsh_v2",
                  outcome.bool("refused") == true && outcome.string("code") == "invalid_request" && reason.contains("p2wsh_v2"),
                  "refused \(outcome.bool("refused").map(String.init) ?? "?"), code \(outcome.string("code") ?? "none"): \(reason)"),
            Check("the provider holds no swap", swaps.isEmpty,
                  swaps.isEmpty ? "provA: no swap" : swaps.map { "\($0.id) \($0.state)" }.joined(separator: "; ")),
            Check("no money moved: the kit's and provA's Lightning, provA's wallet, nothing in flight",
                  before.lightningMsat(kit.name) == after.lightningMsat(kit.name)
                      && before.lightningMsat(provider.name) == after.lightningMsat(provider.name)
                      && walletBefore == walletAfter && after.inFlightMsat == 0,
                  "\(kit.name) \(formatMsat(before.lightningMsat(kit.name))) -> \(formatMsat(after.lightningMsat(kit.name))); "
                  + "provA Lightning \(formatMsat(before.lightningMsat(provider.name))) -> \(formatMsat(after.lightningMsat(provider.name))); "
                  + "provA wallet \(formatSats(walletBefore)) -> \(formatSats(walletAfter)); in flight \(formatMsat(after.inFlightMsat))"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// The kit pays, waits for the lock, then mines a claim of a shape Core's mempool
    /// refuses (`refusal` names the reason) with `hub_mine_transaction`, never pushing the
    /// preimage: the provider has only the mined witness to settle with.
    static func forgedClaim(_ net: Testnet, _ clock: StageClock, attack: String, refusal: String, shape: String,
                            witnessHasShape: ([String]) -> Bool) throws(Failure) -> [Check] {
        let (provider, kit) = try setUp(net, clock)
        let before = try net.hub.rpc.balances()
        let outcome = try clock.stage("peernode-adversary --attack \(attack): pay, wait for the lock, mine the claim") {
            () throws(Failure) -> KitOutcome in
            let outcome = try kit.run(attack, against: provider, amountSat: amountSat, clock: clock)
            clock.note(outcome.line)
            return outcome
        }
        guard outcome.status == 0, let claimTxid = outcome.string("claim_txid") else {
            throw Failure("the kit could not play \(attack): \(outcome.line)")
        }
        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()

        // The claim as the chain has it, not as the kit says it built it.
        let claim = JSON.object(try net.hub.rpc.call("getrawtransaction", [claimTxid, true])) ?? [:]
        let confirmations = JSON.int(claim["confirmations"]) ?? 0
        let input = JSON.object(JSON.array(claim["vin"]).first) ?? [:]
        let witness = JSON.array(input["txinwitness"]).compactMap(JSON.string)
        let spendsLock = JSON.string(input["txid"]) == outcome.string("lock_txid") && JSON.int(input["vout"]) == outcome.int("lock_vout")

        let swaps = try provider.swapList().filter { $0.role == "provider" }
        let events = try swaps.first.map { (swap) throws(Failure) in try providerEvents(provider, swap.id) } ?? []
        let recorded = events.first { $0.kind == "claim_observed" }.flatMap { JSON.string($0.data["preimage"]) }
        let total = outcome.int("invoice_total_sat") ?? 0
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let kitDrop = (before.lightningMsat(kit.name) ?? 0) - (after.lightningMsat(kit.name) ?? 0)
        let providerGain = (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        var checks = [
            ranCheck(outcome),
            Check("the mempool refuses the claim as non-standard (\(refusal))",
                  outcome.bool("mempool_accepted") == false && (outcome.string("mempool_answer") ?? "").contains(refusal),
                  "sendrawtransaction: \(outcome.string("mempool_answer") ?? "no answer recorded")"),
            Check("the claim is mined out of band, spending the lock, with \(shape)",
                  confirmations >= 1 && spendsLock && witnessHasShape(witness),
                  "claim \(claimTxid): \(confirmations) confirmation(s) at height \(outcome.int("claim_height") ?? 0); "
                  + "spends the lock: \(spendsLock); witness [\(witness.map { $0.count > 16 ? String($0.prefix(8)) + "…" : $0 }.joined(separator: ", "))]"),
            Check("provA read the preimage from the mined witness (the kit never pushed it)",
                  outcome.bool("preimage_pushed") == false && recorded != nil && recorded == outcome.string("preimage"),
                  "pushed: \(outcome.bool("preimage_pushed").map(String.init) ?? "?"); claim_observed recorded "
                  + "\(recorded ?? "no preimage"); the kit's \(outcome.string("preimage") ?? "?")"),
            Check("provA's swap ended settled", swaps.count == 1 && swaps.first?.state == "settled",
                  swaps.map { "\($0.id) \($0.state)" + ($0.reason.map { " (\($0))" } ?? "") }.joined(separator: "; ")),
            Check("provA was paid the invoice", total > 0 && providerGain == total * 1_000,
                  "provA Lightning +\(formatMsat(providerGain)); invoice \(formatSats(total))"),
            Check("the kit paid exactly the invoice + the routing fee, and its payment succeeded",
                  kitDrop == total * 1_000 + routing && outcome.string("payment") == "succeeded",
                  "\(kit.name) fell by \(formatMsat(kitDrop)); invoice \(formatSats(total)) + routing \(formatMsat(routing)); "
                  + "payment \(outcome.string("payment") ?? "?")"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// The kit pays and never claims; blocks are mined one at a time until provA starts its
    /// refund, then none while the kit catches the refund in the mempool and pushes the
    /// real preimage; then blocks until every swap is final.
    static func pushAfterRefund(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (provider, kit) = try setUp(net, clock, config: [CrashScenarios.shortTimeout])
        let before = try net.hub.rpc.balances()
        let walletBefore = try provider.walletBalance().total
        let process = try kit.start("push-after-refund", against: provider, amountSat: amountSat)
        defer { process.stop() }

        // No block before the lock: with a 40-block timeout the provider locks only while
        // 37 are left, so blocks mined meanwhile could make it cancel instead.
        let swapID = try clock.stage("peernode-adversary --attack push-after-refund: wait for provA's lock") {
            () throws(Failure) -> String in
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                if let swap = try provider.swapList().first(where: { $0.role == "provider" }), lockedStates.contains(swap.state) {
                    clock.note("provA swap \(swap.id): \(swap.state)")
                    return swap.id
                }
                guard process.isRunning else { throw Failure("the kit ended before any lock: \(try process.wait(timeout: 5).line)") }
                usleep(200_000)
            }
            throw Failure("provA did not lock within 120 s")
        }
        let refundState = try clock.stage("mine a block at a time until provA's refund is out") { () throws(Failure) -> String in
            var mined = 0
            let deadline = Date().addingTimeInterval(180)
            while mined <= 120 && Date() < deadline {
                let state = try provider.swapList().first { $0.id == swapID }?.state ?? "missing"
                // Once the first block took the lock, nothing else is in the mempool until
                // the refund: one broadcast after the state was read must not be mined
                // before the kit sees it.
                let chain = try net.hub.rpc.balances()
                if refundStates.contains(state) || (mined > 0 && chain.mempoolSize > 0) {
                    clock.note("provA: \(state) after \(mined) block(s)")
                    return state
                }
                guard process.isRunning else { throw Failure("the kit ended before the refund: \(try process.wait(timeout: 5).line)") }
                // From the timeout height on the refund may go out at any moment (a loaded
                // provider takes its time): mining then could take it into a block unseen,
                // so the runner waits for it instead (the kit logs the timeout height).
                if let timeout = Self.timeoutHeight(in: process.progress), chain.height >= Int64(timeout) {
                    usleep(300_000)
                    continue
                }
                try net.hub.mine(1)
                mined += 1
                usleep(300_000)
            }
            throw Failure("provA did not start its refund within 120 blocks and 180 s")
        }
        let outcome = try clock.stage("no block: the kit catches the refund in the mempool and pushes the preimage") {
            () throws(Failure) -> KitOutcome in
            let outcome = try process.wait(timeout: 120)
            for line in process.progress { clock.note("… " + line) }
            clock.note(outcome.line)
            return outcome
        }
        guard outcome.status == 0 else { throw Failure("the kit could not play push-after-refund: \(outcome.line)") }
        let justAfter = try net.hub.rpc.balances()
        let stateAfterPush = try provider.swapList().first { $0.id == swapID }?.state ?? "missing"

        let blocks = try clock.stage("mine until every swap is final") { () throws(Failure) -> Int in try CrashScenarios.settle(net) }
        clock.note("mined \(blocks) block(s)")
        let after = try net.hub.rpc.balances()
        let walletAfter = try provider.walletBalance().total
        let swaps = try provider.swapList().filter { $0.role == "provider" }
        let events = try providerEvents(provider, swapID)
        let kinds = events.map(\.kind)
        let lastRefund = events.last { JSON.object($0.data["refund"]) != nil }?.data
        let lockFee = JSON.int(JSON.object(lastRefund?["lock"])?["fee_sat"])
        let refundFee = JSON.int(JSON.object(lastRefund?["refund"])?["fee_sat"])
        let recordedRefund = JSON.string(JSON.object(lastRefund?["refund"])?["tx"])

        // What spent the lock, from the blocks: the refund the kit saw may have been
        // replaced by a fee bump of provA's since (it bumps once per block it catches up on).
        let refundTxid = outcome.string("refund_txid") ?? ""
        let spend = try lockSpend(net, txid: outcome.string("lock_txid") ?? "", vout: outcome.int("lock_vout") ?? -1,
                                  from: outcome.int("pushed_at_height") ?? after.height)
        let spendTxid = JSON.string(spend?.transaction["txid"]) ?? "none"

        var checks = [
            ranCheck(outcome),
            Check("the kit pushed the real preimage while provA's refund was unconfirmed",
                  outcome.bool("preimage_pushed") == true && outcome.bool("refund_in_mempool") == true
                      && outcome.bool("refund_still_in_mempool") == true,
                  "pushed \(outcome.bool("preimage_pushed").map(String.init) ?? "?") at height \(outcome.int("pushed_at_height") ?? 0) "
                  + "(timeout height \(outcome.int("timeout_height") ?? 0), provA was \(refundState)); refund \(refundTxid) in the "
                  + "mempool then: \(outcome.bool("refund_in_mempool").map(String.init) ?? "?"), 3 s later: "
                  + "\(outcome.bool("refund_still_in_mempool").map(String.init) ?? "?")"),
            Check("the push settled nothing: provA not settled, its Lightning unchanged, the payment still held",
                  !["settled", "claim_observed"].contains(stateAfterPush) && outcome.string("provider_status_after_push") != "settled"
                      && justAfter.lightningMsat(provider.name) == before.lightningMsat(provider.name) && justAfter.inFlightMsat > 0,
                  "provA \(stateAfterPush) (told the kit \(outcome.string("provider_status_after_push") ?? "?")); Lightning "
                  + "\(formatMsat(before.lightningMsat(provider.name))) -> \(formatMsat(justAfter.lightningMsat(provider.name))); "
                  + "in flight \(formatMsat(justAfter.inFlightMsat))"),
            Check("provA's swap ended refunded and was never settled",
                  swaps.count == 1 && swaps.first?.state == "refunded" && !kinds.contains("settled") && !kinds.contains("claim_observed"),
                  (swaps.first.map { "\($0.id) \($0.state)" } ?? "no swap") + "; events: " + kinds.joined(separator: " > ")),
            Check("what spent the lock is provA's recorded refund, confirmed 6 deep or more",
                  (spend?.confirmations ?? 0) >= 6 && recordedRefund != nil && recordedRefund == JSON.string(spend?.transaction["hex"]),
                  "lock spent by \(spendTxid) (\(spendTxid == refundTxid ? "the refund the kit saw" : "a bump of the refund \(refundTxid) the kit saw")), "
                  + "\(spend?.confirmations ?? 0) confirmation(s); provA's recorded refund is this transaction: "
                  + "\(recordedRefund != nil && recordedRefund == JSON.string(spend?.transaction["hex"]))"),
            Check("the kit's payment came back; provA was paid nothing",
                  after.lightningMsat(kit.name) == before.lightningMsat(kit.name)
                      && after.lightningMsat(provider.name) == before.lightningMsat(provider.name),
                  "\(kit.name) \(formatMsat(before.lightningMsat(kit.name))) -> \(formatMsat(after.lightningMsat(kit.name))); "
                  + "provA \(formatMsat(before.lightningMsat(provider.name))) -> \(formatMsat(after.lightningMsat(provider.name)))"),
            Check("provA's wallet is down only its lock and refund fees",
                  lockFee != nil && refundFee != nil && walletBefore - walletAfter == (lockFee ?? 0) + (refundFee ?? 0),
                  "wallet -\(formatSats(walletBefore - walletAfter)); lock fee \(formatSats(lockFee)) + refund fee \(formatSats(refundFee))"),
        ]
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    // MARK: - building blocks

    /// One funded provider, `provA` (`config`: extra lines, a short refund timeout), and the
    /// kit's Lightning node (500,000 sat). No honest client: the kit is the only one.
    static func setUp(_ net: Testnet, _ clock: StageClock, config: [String] = []) throws(Failure) -> (Node, HostileKit) {
        let provider = try clock.stage("create and start provA (provider)") { () throws(Failure) -> Node in
            let nodes = try net.add([NodeSpec(name: "provA", provider: true, baseFeeSat: 500, feePPM: 2_000, extraConfig: config)])
            try net.start(nodes)
            return nodes[0]
        }
        try clock.stage("fund provA's wallet") { () throws(Failure) in try net.fund([provider], sats: 2_000_000) }
        let kit = try clock.stage("the kit's Lightning node: \(formatSats(kitLightningSat))") { () throws(Failure) -> HostileKit in
            try HostileKit(net, lightningSat: kitLightningSat)
        }
        return (provider, kit)
    }

    /// The kit played its script (exit 0 with a report), whatever the provider did.
    static func ranCheck(_ outcome: KitOutcome) -> Check {
        Check("the kit played its script", outcome.status == 0 && !outcome.report.isEmpty,
              outcome.report.isEmpty ? outcome.line : "exit \(outcome.status), a report of \(outcome.report.count) fields (above)")
    }

    /// The transaction that spent `txid:vout` in a block from height `from` to the tip
    /// (`getblock` with its transactions), and its confirmations.
    static func lockSpend(_ net: Testnet, txid: String, vout: Int64,
                          from: Int64) throws(Failure) -> (transaction: [String: Any], confirmations: Int64)? {
        let tip = try net.hub.rpc.balances().height
        for height in max(from, 1)...max(tip, 1) {
            guard let hash = JSON.string(try net.hub.rpc.call("getblockhash", [height])),
                  let block = JSON.object(try net.hub.rpc.call("getblock", [hash, 2])) else { continue }
            for case let transaction as [String: Any] in JSON.array(block["tx"]) {
                let spends = JSON.array(transaction["vin"]).contains { input in
                    JSON.string(JSON.object(input)?["txid"]) == txid && JSON.int(JSON.object(input)?["vout"]) == vout
                }
                if spends { return (transaction, tip - height + 1) }
            }
        }
        return nil
    }

    /// A swap's events, each with its kind (`swap show`).
    /// The timeout height the kit logged while waiting for the refund ("(timeout height N)").
    static func timeoutHeight(in progress: [String]) -> Int? {
        for line in progress.reversed() {
            guard let range = line.range(of: "(timeout height ") else { continue }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }

    static func providerEvents(_ node: Node, _ id: String) throws(Failure) -> [(kind: String, data: [String: Any])] {
        JSON.array(try node.must(["swap", "show", id])["events"]).map { event in
            let entry = JSON.object(event) ?? [:]
            return (JSON.string(entry["kind"]) ?? "?", JSON.object(entry["data"]) ?? [:])
        }
    }
}
