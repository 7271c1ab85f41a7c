#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Recovery of submarine swaps with real processes (docs/RECOVERY.md, section 3): a node
/// whose data directory is wiped keeps only its seed (and its config and macaroon, which
/// its operator writes again); `peernode recover` scans the chain, asks its contacts
/// (added again) for the onchain_to_ln swaps they hold with it, checks each against its
/// seed and the chain, and its engines finish them.
enum SubmarineRecoveryScenarios {
    static let all: [Scenario] = [
        Scenario(name: "submarine-recover-refund",
                 summary: "the client's data directory is wiped after its lock, the provider never pays: `recover` "
                    + "gets the swap back from the provider and the client refunds after the timeout",
                 quick: true, body: clientRefunds),
        Scenario(name: "submarine-recover-claim",
                 summary: "the provider's database is wiped after it paid: `recover` gets the swap back from the client "
                    + "and the provider claims, paying nothing twice",
                 quick: true, body: providerClaims),
    ]

    static let amountSat = SubmarineScenarios.amountSat
    /// The shortest submarine timeout that admits an invoice with LND's default final delta
    /// (80) when the provider keeps no route allowance (`submarine_route_cltv_blocks=0`):
    /// 1 confirmation + 12 of wait + 12 of CLTV margin + 3 of padding + 80.
    static let shortTimeoutBlocks = 108
    /// Blocks the provider stays away: past them not even a direct route fits under its
    /// CLTV limit (80 + 3 > 108 − 14 − 12), so it never pays.
    static let providerAwayBlocks = 14

    /// Everything but the seed, the config and the LND macaroon goes: the database, the
    /// swap index mark, the status token, the socket.
    static func wipe(_ node: Node) throws(Failure) -> [String] {
        let kept: Set<String> = ["seed", "peernode.conf", "lnd.macaroon"]
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: node.datadir) else {
            throw Failure("cannot list \(node.datadir)")
        }
        var removed: [String] = []
        for name in names.sorted() where !kept.contains(name) {
            do { try FileManager.default.removeItem(atPath: node.datadir + "/" + name) } catch {
                throw Failure("cannot remove \(node.datadir)/\(name): \(error)")
            }
            removed.append(name)
        }
        return removed
    }

    /// `peernode recover` and what it found, re-created and asked.
    static func recover(_ node: Node, _ clock: StageClock) throws(Failure) -> [String: Any] {
        try clock.stage("`peernode recover` on \(node.name): scan, then ask its contacts") { () throws(Failure) -> [String: Any] in
            let result = try node.must(["recover"], timeout: 120)
            for contact in JSON.array(result["contacts"]).compactMap(JSON.object) {
                clock.note("asked \(JSON.string(contact["contact"]) ?? "?"): listed \(JSON.int(contact["listed"]) ?? 0), "
                    + "re-created \(JSON.array(contact["recreated"]).count)"
                    + (JSON.string(contact["failure"]).map { " (\($0))" } ?? "")
                    + JSON.array(contact["skipped"]).compactMap(JSON.object).map { "; skipped: \(JSON.string($0["reason"]) ?? "?")" }
                        .joined())
            }
            return result
        }
    }

    /// What `recover` re-created, across its contacts.
    static func recreated(_ result: [String: Any]) -> [[String: Any]] {
        JSON.array(result["contacts"]).compactMap(JSON.object).flatMap { JSON.array($0["recreated"]).compactMap(JSON.object) }
    }

    /// The client locks; the provider stops (gone) and comes back only once paying is no
    /// longer possible (the CLTV limit no longer fits), so it never pays. Meanwhile the
    /// client's data directory is wiped: from its seed, its contacts added again and the
    /// provider's list, `recover` re-creates the swap, and the client refunds after the
    /// timeout, losing only the lock's and the refund's fees.
    static func clientRefunds(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, payee) = try SubmarineScenarios.setUp(net, clock, providerConfig: [
            "submarine_timeout_blocks=\(shortTimeoutBlocks)", "submarine_route_cltv_blocks=0"])
        guard let erin = payee else { throw Failure("no payee") }
        try provider.pinListenAddress()
        let before = try net.hub.rpc.balances()
        let savingsBefore = try client.walletBalance().total
        let pay = try BackgroundCommand(net, node: client, ["pay", erin.name, String(amountSat)], name: "pay")
        try clock.stage("wait for the client's lock, then stop the provider") { () throws(Failure) in
            try waitFor("the client's lock", seconds: 60) { () throws(Failure) -> Bool in
                JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object).contains {
                    ["lock_broadcast", "lock_confirmed"].contains(JSON.string($0["state"]) ?? "")
                }
            }
            clock.note(provider.stop())
        }
        let removed = try clock.stage("stop the client and wipe its data directory but the seed") { () throws(Failure) -> [String] in
            clock.note(client.stop())
            pay.stop()
            let removed = try wipe(client)
            clock.note("removed: " + removed.joined(separator: ", "))
            return removed
        }
        try clock.stage("mine \(providerAwayBlocks) blocks (the lock confirms; the invoice's CLTV no longer fits), restart both") {
            () throws(Failure) in
            try net.hub.mine(providerAwayBlocks)
            try client.start()
            try provider.start()
            try client.saveContact(provider)
            try client.saveContact(erin)
        }
        let result = try recover(client, clock)
        let found = recreated(result)
        let swapID = JSON.string(found.first?["id"]) ?? "?"
        try clock.stage("mine past the timeout until the recovered swap is refunded") { () throws(Failure) in
            // The first blocks in one go: the refund is valid only after the timeout.
            try net.hub.mine(shortTimeoutBlocks - providerAwayBlocks - 5)
            _ = try net.mine(until: "the client's refund", blocks: 20) { () throws(Failure) -> Bool in
                JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object).contains {
                    JSON.string($0["id"]) == swapID && JSON.string($0["state"]) == "refunded"
                }
            }
        }
        try SubmarineScenarios.mineUntilFinal(net, [client, provider, erin], blocks: 3)
        let after = try net.hub.rpc.balances()
        let spent = savingsBefore - (try client.walletBalance().total)
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let providerSwap = JSON.array(try provider.must(["swaps"])["swaps"]).compactMap(JSON.object).first
        return [
            Check("the wipe took the database and the index mark", removed.contains("peernode.db") && removed.contains("swap_index_mark"),
                  removed.joined(separator: ", ")),
            Check("recover read the wallet's chain again from height 0 (the lost database held its birthday)",
                  JSON.int(result["wallet_rescanned_from"]) == 0, "wallet_rescanned_from: \(JSON.line(result["wallet_rescanned_from"]))"),
            Check("recover re-created one client swap from the provider's list, resuming at lock_confirmed",
                  found.count == 1 && JSON.string(found.first?["role"]) == "client"
                    && JSON.string(found.first?["resumes_at"]) == "lock_confirmed" && JSON.bool(result["resumed"]) == true,
                  JSON.line(found)),
            // Gave up unpaid: `abandoned`, or `released` once it co-signed the client's key-path
            // refund (a cooperating client that recovered its swap takes the offer).
            Check("the provider never paid", ["abandoned", "released"].contains(JSON.string(providerSwap?["state"]) ?? "") && got == 0,
                  "provider's swap \(JSON.string(providerSwap?["state"]) ?? "?"); erin +\(formatMsat(got))"),
            Check("the client lost only the lock's and the refund's fees (under 5,000 sat)", spent > 0 && spent < 5_000,
                  "savings fell by \(formatSats(spent))"),
            try CommonChecks.swapsFinal([client, provider, erin], hub: after),
        ] + CommonChecks.conservation(before: before, after: after)
    }

    /// The provider pays the invoice and dies right after recording it (a crash point at
    /// `paid`, before any claim); its data directory is wiped but for the seed. From its
    /// seed, its client added as a contact and the client's list, `recover` re-creates the
    /// swap at `paid` (its LND's payment gives the preimage) and the provider claims; erin
    /// got the invoice once, the client's swap completes with the preimage as its proof.
    static func providerClaims(_ net: Testnet, _ clock: StageClock) throws(Failure) -> [Check] {
        let (client, provider, payee) = try SubmarineScenarios.setUp(net, clock)
        guard let erin = payee else { throw Failure("no payee") }
        try provider.pinListenAddress()
        try clock.stage("restart the provider with a crash point right after it records `paid`") { () throws(Failure) in
            clock.note(try provider.restart(environment: ["PEERNODE_TEST_CRASH_AFTER": "provider:onchain_to_ln:paid"]))
        }
        let before = try net.hub.rpc.balances()
        let providerSavingsBefore = try provider.walletBalance().total
        let pay = try BackgroundCommand(net, node: client, ["pay", erin.name, String(amountSat)], name: "pay")
        let died = try clock.stage("mine until the provider pays and dies") { () throws(Failure) -> String in
            _ = try net.mine(until: "the provider's crash after paying", blocks: 10) { () throws(Failure) -> Bool in
                !provider.isRunning
            }
            return try provider.waitExit(timeout: 5) { false } ?? "?"
        }
        let reached = provider.logContains("crash point provider:onchain_to_ln:paid reached")
        clock.note("provider: \(died)")
        net.ledger.deposit(erin.name, msat: amountSat * 1_000, "paid by the provider before its database was lost")
        let removed = try clock.stage("wipe the provider's data directory but the seed, restart it, add the client") {
            () throws(Failure) -> [String] in
            let removed = try wipe(provider)
            try provider.start()
            try provider.saveContact(client)
            return removed
        }
        let result = try recover(provider, clock)
        let found = recreated(result)
        try clock.stage("mine until the provider's claim is deep and the client's swap completes") { () throws(Failure) in
            _ = try net.mine(until: "both swaps final", blocks: 12) { () throws(Failure) -> Bool in
                let done = JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object).contains {
                    JSON.string($0["state"]) == "completed"
                }
                let claimed = JSON.array(try provider.must(["swaps"])["swaps"]).compactMap(JSON.object).contains {
                    JSON.string($0["state"]) == "claimed"
                }
                return done && claimed
            }
        }
        try pay.wait(timeout: 30)
        let paid = pay.result ?? [:]
        let clientSwap = JSON.array(try client.must(["swaps"])["swaps"]).compactMap(JSON.object).first
        let after = try net.hub.rpc.balances()
        let got = (after.lightningMsat(erin.name) ?? 0) - (before.lightningMsat(erin.name) ?? 0)
        let lockValue = JSON.int(found.first?["lock_value_sat"]) ?? 0
        let earned = try provider.walletBalance().total - providerSavingsBefore
        return [
            Check("the provider died right after recording paid, before claiming", reached && died == "signal 9", died),
            Check("the wipe took the database", removed.contains("peernode.db"), removed.joined(separator: ", ")),
            Check("recover re-created one provider swap from the client's list, resuming at paid",
                  found.count == 1 && JSON.string(found.first?["role"]) == "provider"
                    && JSON.string(found.first?["resumes_at"]) == "paid" && JSON.bool(result["resumed"]) == true,
                  JSON.line(found)),
            Check("erin got exactly \(formatSats(amountSat)), once", got == amountSat * 1_000, "+\(formatMsat(got))"),
            Check("the provider's wallet holds the lock less its claim's fee (under 1,000 sat)",
                  lockValue > 0 && earned < lockValue && earned > lockValue - 1_000,
                  "wallet +\(formatSats(earned)) for a lock of \(formatSats(lockValue))"),
            // The recovered provider asks for a cooperative claim (musig2 on both sides): the
            // preimage then comes with its request, before any claim is out.
            Check("the client's pay returned paid with the claim's preimage as its proof",
                  JSON.string(paid["status"]) == "paid" && ["claim", "cooperative_claim"].contains(JSON.string(paid["preimage_source"]) ?? "")
                    && JSON.string(clientSwap?["preimage"]) == JSON.string(paid["preimage"]),
                  "pay: \(pay.outcome); swaps row: \(JSON.line(clientSwap))"),
            try CommonChecks.swapsFinal([client, provider, erin], hub: after),
        ] + CommonChecks.conservation(before: before, after: after)
    }

    private static func waitFor(_ what: String, seconds: TimeInterval, _ condition: () throws(Failure) -> Bool) throws(Failure) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(200_000)
        }
        throw Failure("\(what) did not happen within \(Int(seconds)) s")
    }
}
