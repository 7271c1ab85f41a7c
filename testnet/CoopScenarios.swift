#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Cooperative (MuSig2 key-path) claims between real daemons (issue 17). Both nodes run
/// with `musig2=1`, the default: the provider lists it in its offers, the client asks.
/// - `coop-claim`: a payment to carol and a swap-out, both claimed through the key path
///   (the witness on chain is one 64-byte signature); carol gets exactly X, the client's
///   wallet X plus what the key path saved; every node's books exact to the msat;
/// - `coop-refused`, `coop-silent`: a provider that lists `musig2` but refuses
///   (`PEERNODE_TEST_COOP=refuse`) or never answers in time (`silent`): the client claims
///   through the script path, carol gets exactly X.
/// The `kill -9` cases are in `CrashScenarios` (`coop_requested`, `coop_signed` and the
/// states around them), each checked with `CoopAudit`.
enum CoopScenarios {
    static let amountSat: Int64 = 25_000
    static let swapOutSat: Int64 = 30_000

    static var all: [Scenario] {
        [
            Scenario(name: "coop-claim", summary: "pay carol and swap out with musig2 on both sides: key-path claims (one 64-byte "
                         + "signature), carol gets exactly X, the wallet X + the saving, books exact", group: .quick, body: claim),
            Scenario(name: "coop-refused", summary: "a provider that offers musig2 refuses to co-sign: the script-path claim, "
                         + "carol gets exactly X", group: .quick) { net, clock throws(Failure) in
                try fallBack(net, clock, fault: "refuse")
            },
            Scenario(name: "coop-silent", summary: "a provider that offers musig2 never answers in time: after 5 s the "
                         + "script-path claim, carol gets exactly X", group: .other) { net, clock throws(Failure) in
                try fallBack(net, clock, fault: "silent")
            },
        ]
    }

    static func claim(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        let provider = providers[0]
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().confirmed
        let paid = try pay(net, clock, client, ["pay", carol.name, String(amountSat)])
        _ = try net.mine(until: "carol receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
            try carol.walletBalance().confirmed >= carolBefore + amountSat
        }
        net.ledger.deposit(carol.name, msat: amountSat * 1_000, "paid by the client's swap")
        let received = try carol.walletBalance().confirmed - carolBefore
        var checks = [Check("carol received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))")]
        checks += try keyPathChecks(net, paid, what: "the payment to carol")

        let walletBefore = try client.walletBalance().confirmed
        let out = try pay(net, clock, client, ["swap-out", String(swapOutSat)])
        let saved = JSON.int(out["claim_saved_sat"]) ?? -1
        _ = try net.mine(until: "the client's wallet receiving the swap-out", blocks: 20) { () throws(Failure) -> Bool in
            try client.walletBalance().confirmed >= walletBefore + swapOutSat
        }
        let gained = try client.walletBalance().confirmed - walletBefore
        checks += try keyPathChecks(net, out, what: "the swap-out")
        checks.append(Check("the swap-out's saving is the client's: its wallet got X + claim_saved_sat",
                            saved > 0 && gained == swapOutSat + saved,
                            "+\(formatSats(gained)); X \(formatSats(swapOutSat)), saved \(formatSats(saved))"))

        let after = try net.hub.rpc.balances()
        checks += try CoopAudit.checks(net, client: client, provider: provider)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        checks += try AccountingCheck.run(net.nodes, net: net)
        return checks
    }

    static func fallBack(_ net: Testnet, _ clock: StageClock, fault: String) throws(Failure) -> [Check] {
        let (client, providers, carol) = try Scenario.setUp(net, clock, providers: [("provA", 500, 2_000)], others: ["carol"])
        let provider = providers[0]
        try clock.stage("restart provA with PEERNODE_TEST_COOP=\(fault) (it still lists musig2)") { () throws(Failure) in
            clock.note(try provider.restart(environment: ["PEERNODE_TEST_COOP": fault]))
        }
        let before = try net.hub.rpc.balances()
        let carolBefore = try carol.walletBalance().confirmed
        let paid = try pay(net, clock, client, ["pay", carol.name, String(amountSat)])
        _ = try net.mine(until: "carol receiving \(formatSats(amountSat))", blocks: 20) { () throws(Failure) -> Bool in
            try carol.walletBalance().confirmed >= carolBefore + amountSat
        }
        let received = try carol.walletBalance().confirmed - carolBefore
        let witness = try claimWitness(net, paid)
        let fallback = JSON.string(paid["cooperation_fallback"]) ?? ""
        let providerKinds = try CoopAudit.kinds(provider)
        let after = try net.hub.rpc.balances()
        var checks = [
            Check("carol received exactly \(formatSats(amountSat))", received == amountSat, "+\(formatSats(received))"),
            Check("the claim took the script path (signature, preimage, leaf, control block) after the round failed",
                  JSON.string(paid["claim_path"]) == "script_path" && witness.count == 4 && !fallback.isEmpty,
                  "claim_path \(JSON.string(paid["claim_path"]) ?? "?"), witness of \(witness.count) item(s); fallback: \(fallback)"),
            Check("provA never co-signed and settled from the script-path claim",
                  !providerKinds.contains("coop_signed") && providerKinds.contains("claim_observed") && providerKinds.last == "settled",
                  providerKinds.joined(separator: " ")),
            Check("provA said why it did not co-sign", provider.logContains("cooperative claim refused (\(fault))"),
                  "its log names the test hook"),
        ]
        checks += Scenario.paidChecks(before: before, after: after, result: paid, provider: provider)
        checks += try CoopAudit.checks(net, client: client, provider: provider)
        checks.append(try CommonChecks.swapsFinal(net.nodes, hub: after))
        checks += CommonChecks.conservation(before: before, after: after)
        return checks
    }

    /// Runs a paying command with blocks mined every second; its JSON result.
    private static func pay(_ net: Testnet, _ clock: StageClock, _ client: Node, _ arguments: [String]) throws(Failure) -> [String: Any] {
        try clock.stage(arguments.joined(separator: " ")) { () throws(Failure) -> [String: Any] in
            try Scenario.withAutomine(net) { () throws(Failure) -> [String: Any] in
                let lines = ProgressLines()
                let result = try client.cli(arguments, timeout: 300) { if let stage = lines.fresh($0) { clock.note("… " + stage) } }
                guard result.ok, let json = result.json else {
                    throw Failure("\(arguments[0]) failed (exit \(result.status)): \(result.failureText)")
                }
                clock.note("claim \(JSON.string(json["claim_txid"]) ?? "?"): \(JSON.string(json["claim_path"]) ?? "?"), "
                           + "\(JSON.int(json["claim_vsize_vb"]) ?? 0) vB (\(JSON.int(json["claim_saved_vb"]) ?? 0) vB saved), "
                           + "fee \(formatSats(JSON.int(json["claim_fee_paid_sat"]))), saved \(formatSats(JSON.int(json["claim_saved_sat"])))")
                return json
            }
        }
    }

    /// The claim's witness items (hex) as the chain has it.
    static func claimWitness(_ net: Testnet, _ paid: [String: Any]) throws(Failure) -> [String] {
        guard let txid = JSON.string(paid["claim_txid"]) else { throw Failure("no claim_txid in \(JSON.line(paid))") }
        let claim = JSON.object(try net.hub.rpc.call("getrawtransaction", [txid, true])) ?? [:]
        return JSON.array(JSON.object(JSON.array(claim["vin"]).first)?["txinwitness"]).compactMap(JSON.string)
    }

    private static func keyPathChecks(_ net: Testnet, _ paid: [String: Any], what: String) throws(Failure) -> [Check] {
        let witness = try claimWitness(net, paid)
        return [Check("\(what) claimed through the key path: the witness is one 64-byte signature",
                      JSON.string(paid["claim_path"]) == "key_path" && witness.map(\.count) == [128]
                          && JSON.int(paid["claim_saved_vb"]) == 41,
                      "claim_path \(JSON.string(paid["claim_path"]) ?? "?"), witness item sizes \(witness.map { $0.count / 2 }) "
                          + "byte(s), \(JSON.int(paid["claim_saved_vb"]) ?? 0) vB saved")]
    }
}
