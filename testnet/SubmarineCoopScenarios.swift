#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Cooperative (MuSig2 key-path) spends of submarine locks between real daemons (issue
/// 17): the client holds savings only, erin takes Lightning only, the provider runs
/// `submarine=1`, and every node has `musig2=1` (the default).
/// - `sub-coop-claim`: the provider pays erin, asks the client to co-sign, and claims through
///   the key path (one 64-byte signature); erin gets exactly X, the books are exact;
/// - `sub-coop-refused`, `sub-coop-silent`: a client that lists `musig2` but refuses
///   (`PEERNODE_TEST_COOP=refuse`) or never answers in time (`silent`: the provider, which
///   has paid, waits 5 s): the script-path claim, erin gets exactly X;
/// - `sub-coop-refund`: erin goes offline once the lock is out, so the provider's payment
///   fails (LND: FAILED); it offers a cooperative refund and the client's key-path refund
///   confirms within blocks, not after the timeout; the savings lose only the two fees.
/// The `kill -9` cases are in `SubmarineCrashScenarios` (`coop_signed`, `coop_requested`,
/// `coop_refund_requested`, `coop_refund_signed` and the states around them), each checked
/// with `CoopAudit`.
enum SubmarineCoopScenarios {
    static let amountSat = SubmarineScenarios.amountSat

    static let all: [Scenario] = [
        Scenario(name: "sub-coop-claim", summary: "pay a Lightning contact from savings with musig2 on both sides: the provider's "
                     + "claim takes the key path (one 64-byte signature), erin gets exactly X, books exact", group: .quick,
                 body: claim),
        Scenario(name: "sub-coop-refused", summary: "a client that offers musig2 refuses to co-sign: the provider claims through "
                     + "the script path, erin gets exactly X", group: .quick, body: refused),
        Scenario(name: "sub-coop-silent", summary: "a client that offers musig2 never answers the provider's request: after 5 s "
                     + "the provider claims through the script path, erin gets exactly X", group: .other, body: silent),
        Scenario(name: "sub-coop-refund", summary: "the payee goes offline, the provider's payment fails: a cooperative key-path "
                     + "refund confirms within blocks of the lock, savings lose only the fees", group: .quick, body: refund),
    ]

    // MARK: the claim

    static func claim(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        try paid(net, clock, fault: nil)
    }

    static func refused(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        try paid(net, clock, fault: "refuse")
    }

    static func silent(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        try paid(net, clock, fault: "silent")
    }

    /// The pay through a cooperative claim (or, with a `fault`, a client that will not
    /// co-sign: `refuse` answers no, `silent` outwaits the provider).
    private static func paid(_ net: Testnet, _ clock: StageClock, fault: String?) throws(Failure) -> [Check] {
        var options = SubmarineFaultNet.Options()
        if let fault { options.clientEnvironment = ["PEERNODE_TEST_COOP": fault] }
        let started = try SubmarineFaultNet.payUnderway(net, clock, options)
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        defer { pay.stop() }
        _ = try SubmarineFaultNet.waitForLock(net, client, pay: pay)
        let result = try SubmarineFaultScenarios.mineLockAndFinish(net, clock, pay)
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the client's swap")
        try SubmarineScenarios.mineUntilFinal(net, [client, provider])
        let id = JSON.string(result["swap_id"]) ?? "?"
        let providerID = SubmarineFaultNet.providerID(of: id)
        let providerSwap = try SubmarineFaultNet.shown(provider, providerID)
        let clientSwap = try SubmarineFaultNet.shown(client, id)
        let clientKinds = clientSwap.kinds
        guard let claimTxid = JSON.string(clientSwap.last["claim_txid"]) else { throw Failure("the client saw no claim") }
        let claimWitness = try witness(net, claimTxid)
        let round = try provider.swapEvents(providerID).compactMap { JSON.object($0["coop_request"]) }.last ?? [:]
        let claim = JSON.object(try net.hub.rpc.call("getrawtransaction", [claimTxid, true])) ?? [:]
        let vsize = JSON.int(claim["vsize"]) ?? 0
        let got = (try net.hub.rpc.balances().lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        var checks = [
            Check("erin's Lightning balance rose by exactly \(formatSats(amountSat))", got == amountSat * 1_000, "+\(formatMsat(got))"),
            SubmarineScenarios.savingsCheck(result, before: savingsBefore, after: try client.walletBalance().total),
            Check("the provider recorded its round (coop_requested) before its claim", providerSwap.kinds.firstIndex(of: "coop_requested")
                      .map { $0 < (providerSwap.kinds.firstIndex(of: "claim_broadcast") ?? -1) } ?? false,
                  providerSwap.kinds.joined(separator: " -> ")),
        ]
        if let fault {
            // A silent client says nothing before the provider has given up on it.
            let said = fault == "silent" ? provider.logContains("no cooperative claim (the client did not answer")
                : client.logContains("cooperative claim refused (\(fault))")
            checks += [
                Check("the claim took the script path (signature, preimage, leaf, control block)", claimWitness.count == 4,
                      "claim \(claimTxid): witness of \(claimWitness.count) item(s), \(vsize) vB"),
                Check(fault == "silent" ? "the provider gave up on the silent client and said so; the client co-signed nothing"
                          : "the client refused and said why; it co-signed nothing",
                      said && !clientKinds.contains("coop_signed"), "client: " + clientKinds.joined(separator: " -> ")),
                Check("the client learnt the preimage from the script-path claim", JSON.string(result["preimage_source"]) == "claim",
                      "preimage_source \(JSON.string(result["preimage_source"]) ?? "?")"),
            ]
        } else {
            let saved = (JSON.int(round["script_path_vsize"]) ?? 0) - vsize
            checks += [
                Check("the provider's claim took the key path: its witness is one 64-byte signature", claimWitness.map(\.count) == [128],
                      "claim \(claimTxid): witness item sizes \(claimWitness.map { $0.count / 2 }) byte(s), \(vsize) vB, "
                          + "\(saved) vB under the script path"),
                Check("the claim is 41 vB smaller than the script path's, and the provider kept the saving",
                      saved == 41 && (JSON.int(round["key_path_extra_sat"]) ?? 0) > 0,
                      "saved \(saved) vB, \(formatSats(JSON.int(round["key_path_extra_sat"]))) more to the provider's wallet"),
                Check("the client co-signed (coop_signed) with the preimage from the request, its proof of payment",
                      clientKinds.contains("coop_signed") && JSON.string(result["preimage_source"]) == "cooperative_claim",
                      "client: " + clientKinds.joined(separator: " -> ")),
            ]
        }
        checks += try CoopAudit.checks(net, client: client, provider: provider, since: before.height)
        checks += try SubmarineFaultNet.closing(net, network, before: before, expected: SubmarineFaultNet.paid)
        checks += try AccountingCheck.run([client, provider], net: net)
        return checks
    }

    // MARK: the refund

    static func refund(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let started = try SubmarineFaultNet.payUnderway(net, clock)
        let (network, before, savingsBefore, pay) = (started.network, started.before, started.savingsBefore, started.pay)
        let (client, provider, erin) = (network.client, network.provider, network.erin)
        defer { pay.stop() }
        let (id, lockTxid) = try SubmarineFaultNet.waitForLock(net, client, pay: pay)[0]
        let providerID = SubmarineFaultNet.providerID(of: id)
        try clock.stage("erin goes offline; mine the lock's block: the provider's payment finds no route") { () throws(Failure) in
            _ = try net.hub.rpc.call("hub_ln_setonline", [erin.name, false])
            try net.hub.mine(1)
            try SubmarineFaultNet.wait("the provider's payment failed") { () throws(Failure) -> Bool in
                try SubmarineFaultNet.shown(provider, providerID).kinds.contains("payment_failed")
            }
        }
        defer { _ = try? net.hub.rpc.call("hub_ln_setonline", [erin.name, true]) }
        guard let lockHeight = try SubmarineFaultNet.confirmation(net, lockTxid) else { throw Failure("the lock is in no block") }
        try SubmarineFaultNet.takeCooperativeRefund(net, clock, client, provider, id: id, pay: pay)
        clock.note("pay: \(pay.outcome.prefix(300))")
        let timeout = try SubmarineFaultNet.timeoutHeight(provider, providerID)
        let refund = try SubmarineFaultNet.refund(net, client, id)
        let refundWitness = try witness(net, refund.txid)
        let lockFee = try SubmarineFaultNet.lockFee(client, id)
        let spent = savingsBefore - (try client.walletBalance().total)
        let clientSwap = try SubmarineFaultNet.shown(client, id)
        let round = JSON.object(clientSwap.last["coop_refund_request"]) ?? [:]
        let lockValue = JSON.int(JSON.object(clientSwap.last["lock"])?["value_sat"]) ?? 0
        let scriptPathFee = lockValue - (JSON.int(round["script_path_output_sat"]) ?? lockValue)
        let providerKinds = try SubmarineFaultNet.shown(provider, providerID).kinds
        let got = (try net.hub.rpc.balances().lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        return [
            Check("the refund took the key path (one 64-byte signature) and confirmed within blocks of the lock, "
                      + "\(timeout - refund.height) before the timeout",
                  refundWitness.map(\.count) == [128] && refund.height <= lockHeight + 3 && refund.height < timeout - 100,
                  "refund \(refund.txid) at \(refund.height) (lock at \(lockHeight), timeout \(timeout))"),
            Check("the provider co-signed only after its payment failed, and let the lock go",
                  providerKinds.suffix(3) == ["payment_failed", "coop_refund_signed", "released"] && !providerKinds.contains("paid"),
                  providerKinds.joined(separator: " -> ")),
            Check("the savings lost only the lock's and the refund's fees, the refund's below the script path's",
                  spent == lockFee + refund.feeSat && refund.feeSat < scriptPathFee,
                  "-\(formatSats(spent)) = lock fee \(formatSats(lockFee)) + refund fee \(formatSats(refund.feeSat)) "
                      + "(script path: \(formatSats(scriptPathFee)))"),
            Check("`pay` failed saying the provider co-signed a refund", !pay.succeeded && pay.outcome.contains("co-signed a refund"),
                  String(pay.outcome.prefix(200))),
            Check("erin received nothing", got == 0, "+\(formatMsat(got))"),
        ] + (try CoopAudit.checks(net, client: client, provider: provider, since: before.height))
            + (try SubmarineFaultNet.closing(net, network, before: before, expected: ["refunded": ["released"]]))
            + (try AccountingCheck.run([client, provider], net: net))
    }

    // MARK: readings

    /// The input's witness items (hex) of `txid` as the chain has it.
    static func witness(_ net: Testnet, _ txid: String) throws(Failure) -> [String] {
        let tx = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true]))
        return JSON.array(JSON.object(JSON.array(tx?["vin"]).first)?["txinwitness"]).compactMap(JSON.string)
    }
}
