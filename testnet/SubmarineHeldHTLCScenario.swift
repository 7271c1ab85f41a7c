#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `submarine-held-htlc`: the payee holds the HTLCs the provider sends (`hub_ln_hold erin
/// true`, as a payee with a hold invoice). The provider pays with `cltv_limit = timeout −
/// tip − 12` (SubmarineRules), so the payer's HTLC, and the payee's inside it, expire well
/// before the client may refund; LND's hold-expiry rule cancels a held HTLC 12 blocks before
/// its own expiry. Two swaps at once, both held:
///
/// - A is settled by the payee at the latest block LND allows (its cancel height − 1): the
///   provider learns the preimage and claims, and the claim confirms before the timeout;
/// - B is never settled: LND cancels it at its cancel height, the payment fails back, a
///   release after that is refused, the provider lets the swap go and the client refunds:
///   cooperatively (both nodes offer `musig2`), through the key path, long before the
///   timeout (issue 17).
///
/// Nobody loses: erin gets exactly A; the client pays A's lock and fee, and only fees for B;
/// the provider pays one invoice and claims its lock.
enum SubmarineHeldHTLCScenario {
    static let amounts: [Int64] = [25_000, 26_000]

    static func run(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        var options = SubmarineFaultNet.Options()
        options.coins = 2
        let network = try SubmarineFaultNet.setUp(net, clock, options)
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        _ = try net.hub.rpc.call("hub_ln_hold", [erin.name, true])
        let pays = try amounts.enumerated().map { (index, amount) throws(Failure) -> BackgroundCommand in
            try SubmarineFaultScenarios.startPay(net, clock, client, erin, amountSat: amount, name: "pay-\(index + 1)")
        }
        defer { for pay in pays { pay.stop() } }
        _ = try SubmarineFaultNet.waitForLock(net, client, pay: pays[0], count: 2)
        let held = try clock.stage("mine the locks' block; the provider pays both, erin holds both HTLCs") { () throws(Failure) -> [Held] in
            try net.hub.mine(1)
            var held: [Held] = []
            try SubmarineFaultNet.wait("2 HTLCs held by erin") { () throws(Failure) -> Bool in
                held = try Held.all(net, erin)
                return held.count == 2
            }
            return try held.map { (entry) throws(Failure) -> Held in try entry.matched(client, provider) }
                .sorted { $0.cancelHeight < $1.cancelHeight }
        }
        for entry in held { clock.note(entry.line) }
        let (settled, failed) = (held[0], held[1])
        let settledAt = try clock.stage("mine to the last block before LND would cancel \(settled.amountSat) sat's HTLC; erin settles it") {
            () throws(Failure) -> Int64 in
            try SubmarineFaultNet.mine(to: settled.cancelHeight - 1, net)
            let stillHeld = try Held.all(net, erin).count
            guard stillHeld == 2 else { throw Failure("\(stillHeld) HTLC(s) held at \(settled.cancelHeight - 1), not 2") }
            _ = try net.hub.rpc.call("hub_ln_release", [erin.name, settled.paymentHash, "settle"])
            return try SubmarineFaultNet.tip(net)
        }
        try clock.stage("the provider learns the preimage and broadcasts its claim") { () throws(Failure) in
            try SubmarineFaultNet.wait("provA's claim of \(settled.providerID)") { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(provider, settled.providerID).kinds.last == "claim_broadcast"
            }
        }
        let lateRelease = try clock.stage("mine to \(failed.cancelHeight): LND cancels the other HTLC; erin tries to settle it after") {
            () throws(Failure) -> HubAnswer in
            try SubmarineFaultNet.mine(to: failed.cancelHeight, net)
            try SubmarineFaultNet.wait("the held HTLC cancelled and the payment failed back") { () throws(Failure) -> Bool in
                let none = try Held.all(net, erin).isEmpty
                let failedBack = try SubmarineFaultNet.shown(provider, failed.providerID).kinds.contains("payment_failed")
                return none && failedBack
            }
            return HubAnswer(net.hub.rpc.callResult("hub_ln_release", [erin.name, failed.paymentHash, "settle"]))
        }
        clock.note("late release: \(lateRelease.text)")
        try clock.stage("mine until the paid swap completes") { () throws(Failure) in
            _ = try net.mine(until: "the paid swap final on both ends", blocks: 20) { () throws(Failure) -> Bool in
                let completed = try SubmarineFaultNet.shown(client, settled.clientID).kinds.last == "completed"
                let claimed = try SubmarineFaultNet.shown(provider, settled.providerID).kinds.last == "claimed"
                return completed && claimed
            }
        }
        net.ledger.deposit(erin.name, msat: settled.amountSat * 1_000, "paid by the client's swap")
        try clock.stage("mine until the unpaid swap's cooperative refund confirms") { () throws(Failure) in
            _ = try net.mine(until: "the client's refund", blocks: 20) { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(client, failed.clientID).kinds.last == "refunded"
            }
        }
        try SubmarineScenarios.mineUntilFinal(net, [client, provider])
        for pay in pays { try pay.wait(timeout: 30) }
        let after = try net.hub.rpc.balances()
        return try checks(net, network, held: (settled, failed), settledAt: settledAt, lateRelease: lateRelease, pays: pays,
                          balances: (before, after), savingsBefore: savingsBefore)
            + SubmarineFaultNet.closing(net, network, before: before,
                                        expected: ["completed": ["claimed"], "refunded": ["released"]])
    }

    private static func checks(_ net: Testnet, _ network: SubmarineFaultNet, held: (Held, Held), settledAt: Int64,
                               lateRelease: HubAnswer, pays: [BackgroundCommand], balances: (HubBalances, HubBalances),
                               savingsBefore: Int64) throws(Failure) -> [Check] {
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        let (settled, failed) = held
        let (before, after) = balances
        let claimTxid = JSON.string(try SubmarineFaultNet.shown(client, settled.clientID).last["claim_txid"]) ?? "?"
        let claimHeight = try SubmarineFaultNet.confirmation(net, claimTxid)
        let refund = try SubmarineFaultNet.refund(net, client, failed.clientID)
        let fees = try SubmarineFaultNet.lockFee(client, settled.clientID) + SubmarineFaultNet.lockFee(client, failed.clientID)
        let settledLock = JSON.int(JSON.object(try SubmarineFaultNet.shown(client, settled.clientID).last["lock"])?["value_sat"]) ?? 0
        let spent = savingsBefore - (try client.walletBalance().total)
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let providerPaid = (before.lightningMsat(provider.name) ?? 0) - (after.lightningMsat(provider.name) ?? 0)
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let paidPay = pays[SubmarineHeldHTLCScenario.amounts.firstIndex(of: settled.amountSat) ?? 0]
        let failedPay = pays[SubmarineHeldHTLCScenario.amounts.firstIndex(of: failed.amountSat) ?? 1]
        let failedKinds = try SubmarineFaultNet.shown(provider, failed.providerID).kinds
        let refundWitness = try SubmarineCoopScenarios.witness(net, refund.txid)
        return [
            Check("both HTLCs stay within the provider's CLTV bound (payer's time lock <= pay tip + cltv_limit <= timeout - 12)",
                  [settled, failed].allSatisfy(\.withinBound), [settled, failed].map(\.boundLine).joined(separator: "; ")),
            Check("the payee released the preimage at the last block LND let it, well before the client could refund",
                  settledAt == settled.cancelHeight - 1 && settledAt < settled.timeout - 12,
                  "settled at \(settledAt) (LND cancels at \(settled.cancelHeight)); timeout \(settled.timeout)"),
            Check("the provider's claim confirmed before the timeout", claimHeight.map { $0 <= settled.timeout } ?? false,
                  "claim \(claimTxid) at height \(claimHeight.map(String.init) ?? "none"), timeout \(settled.timeout)"),
            Check("the never-released HTLC was cancelled by LND and can no longer be settled",
                  lateRelease.refused && lateRelease.text.contains("already canceled"), lateRelease.text),
            Check("the provider let the failed swap go without a claim",
                  failedKinds.contains("payment_failed") && failedKinds.last == "released" && !failedKinds.contains("paid"),
                  failedKinds.joined(separator: " -> ")),
            Check("the unpaid swap was refunded through the key path (co-signed once the payment failed), long before its timeout",
                  refund.height < failed.timeout - 12 && refundWitness.count == 1
                      && failedKinds.contains("coop_refund_signed"),
                  "refund \(refund.txid) at \(refund.height), timeout \(failed.timeout); provider: "
                      + failedKinds.joined(separator: " -> ")),
            Check("`pay` succeeded for the released one and failed for the other", paidPay.succeeded && !failedPay.succeeded,
                  "\(settled.amountSat): \(paidPay.outcome.prefix(80)); \(failed.amountSat): \(failedPay.outcome.prefix(120))"),
            Check("erin received exactly the released one's \(formatSats(settled.amountSat))", got == settled.amountSat * 1_000,
                  "+\(formatMsat(got))"),
            Check("the provider paid one invoice and its routing fee", providerPaid == settled.amountSat * 1_000 + routing,
                  "Lightning -\(formatMsat(providerPaid)); routing \(formatMsat(routing))"),
            Check("the client paid the released swap's lock and, for the other, fees only",
                  spent == settledLock + fees + refund.feeSat,
                  "savings fell by \(formatSats(spent)); lock \(formatSats(settledLock)) + lock fees \(formatSats(fees)) "
                      + "+ refund fee \(formatSats(refund.feeSat))"),
        ]
    }

    /// One HTLC erin holds, matched to both ends' records of its swap.
    struct Held {
        let paymentHash: String
        let amountSat: Int64
        let acceptHeight: Int64
        let cancelHeight: Int64
        let payerTimeLock: Int64
        var clientID = ""
        var providerID = ""
        var timeout: Int64 = 0
        var cltvLimit: Int64 = 0

        static func all(_ net: Testnet, _ payee: Node) throws(Failure) -> [Held] {
            JSON.array(JSON.object(try net.hub.rpc.call("hub_ln_hold", [payee.name]))?["held"]).compactMap(JSON.object).compactMap {
                guard let hash = JSON.string($0["payment_hash"]), let msat = JSON.int($0["amount_msat"]),
                      let accept = JSON.int($0["accept_height"]), let cancel = JSON.int($0["cancel_height"]),
                      let lock = JSON.int($0["payer_time_lock"]) else { return nil }
                return Held(paymentHash: hash, amountSat: msat / 1_000, acceptHeight: accept, cancelHeight: cancel, payerTimeLock: lock)
            }
        }

        /// With the client's swap paying this hash, the provider's, its timeout and the
        /// `cltv_limit` the provider paid under.
        func matched(_ client: Node, _ provider: Node) throws(Failure) -> Held {
            var copy = self
            for row in try SubmarineFaultNet.rows(client) {
                guard let id = JSON.string(row["id"]), JSON.string(try SubmarineFaultNet.shown(client, id).contract["payment_hash"]) == paymentHash
                else { continue }
                copy.clientID = id
                copy.providerID = SubmarineFaultNet.providerID(of: id)
            }
            guard !copy.clientID.isEmpty else { throw Failure("no client swap pays the held hash \(paymentHash)") }
            copy.timeout = try SubmarineFaultNet.timeoutHeight(provider, copy.providerID)
            let limits = try provider.swapEvents(copy.providerID).compactMap { JSON.int($0["cltv_limit"]) }
            guard let limit = limits.last else { throw Failure("provA's swap \(copy.providerID) recorded no cltv_limit") }
            copy.cltvLimit = limit
            return copy
        }

        var withinBound: Bool { payerTimeLock <= acceptHeight + cltvLimit && acceptHeight + cltvLimit <= timeout - 12 }

        var boundLine: String {
            "\(amountSat) sat: time lock \(payerTimeLock) <= \(acceptHeight) + \(cltvLimit) <= \(timeout) - 12"
        }

        var line: String {
            "held: \(formatSats(amountSat)) (swap \(clientID)), paid at \(acceptHeight) with cltv_limit \(cltvLimit), payer's time "
                + "lock \(payerTimeLock), LND cancels at \(cancelHeight), timeout \(timeout)"
        }
    }

    /// A hub call that may be refused: its result or its error text.
    struct HubAnswer {
        let refused: Bool
        let text: String

        init(_ outcome: Result<Any, Failure>) {
            switch outcome {
            case .success(let value): (refused, text) = (false, "accepted: \(JSON.line(value))")
            case .failure(let failure): (refused, text) = (true, "\(failure)")
            }
        }
    }
}

extension HubRPC {
    /// A call whose refusal is an answer, not a failure of the run.
    func callResult(_ method: String, _ params: [Any] = []) -> Result<Any, Failure> {
        do { return .success(try call(method, params)) } catch { return .failure(error) }
    }
}
