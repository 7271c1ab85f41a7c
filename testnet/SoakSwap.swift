#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One payment of the soak, run to the end: quote, arm the crash point on the node that
/// will hold the swap, pay in the background, restart the victim after its death, settle
/// (every swap final, nothing in flight or in the mempool), then account for every sat.
struct SoakSwap {
    /// How the payment ended, in money.
    enum Verdict: String {
        /// The payee got exactly X, the provider exactly the invoice, the client paid the
        /// invoice plus the routing fee.
        case paidOut = "paid out"
        /// Nothing moved: payee, client and providers as before.
        case rolledBack = "rolled back"
        /// From savings: the payee got exactly X, the wallet paid X plus the fee shown.
        case sent = "sent from savings"
        /// Neither: value is unaccounted for.
        case neither = "NEITHER paid out exactly nor rolled back"
    }

    struct Outcome {
        let verdict: Verdict
        /// The crash point fired and the victim died of it.
        let crashed: Bool
        /// Armed, but the payment ended without passing the state.
        let notReached: Bool
        /// Value the verdict cannot account for, in msat (0 unless `neither`).
        let unaccountedMsat: Int64
        /// How the `pay` or `swap-out` command ended.
        let command: String
    }

    let net: Testnet
    let clock: StageClock
    let client: Node
    let providers: [Node]
    let carol: Node

    func run(_ plan: SoakPlan, number: Int) throws(Failure) -> Outcome {
        let before = try net.hub.rpc.balances()
        let payee = plan.kind == .swapOut ? client : carol
        let payeeBefore = try payee.walletBalance().total
        let walletBefore = try client.walletBalance().total
        let amount = String(plan.amountSat)
        let arguments = switch plan.kind {
        case .swapOut: ["swap-out", amount]
        case .swapIn: ["swap-in", amount]
        case .pay, .payFromSavings: ["pay", carol.name, amount]
        }

        // The quote names the provider `pay` will pick: the one to arm for a provider crash.
        var quoteTotal: Int64?
        var victim: Node?
        if plan.isSwap && plan.kind != .swapIn {
            let quote = try client.must(plan.kind == .swapOut ? ["quote", amount] : ["quote", amount, "--contact", carol.name], timeout: 60)
            quoteTotal = JSON.int(JSON.find(Demo.totalKeys, in: quote))
            let chosen = JSON.string(JSON.object(quote["provider"])?["name"])
            clock.note("quote: through \(chosen ?? "?"), invoice total \(formatSats(quoteTotal))")
            if let point = plan.crashPoint {
                victim = point.hasPrefix("client:") ? client : providers.first { $0.name == chosen }
                guard let victim else { throw Failure("the quote names no provider of this network: \(JSON.line(quote))") }
                clock.note("arm \(point) on \(victim.name): " + (try CrashScenarios.arm(victim, point)))
            }
        }
        let logMark = victim?.logLength ?? 0

        _ = try net.hub.rpc.call("hub_automine", [1])
        defer { _ = try? net.hub.rpc.call("hub_automine", [0]) }
        let command = try BackgroundCommand(net, node: client, arguments, name: "\(number)-\(arguments[0])")
        defer { command.stop() }
        var crashed = false
        var notReached = false
        if let victim, let point = plan.crashPoint {
            if let ended = try CrashScenarios.waitForCrash(victim, at: point, during: command, logFrom: logMark) {
                crashed = ended == "signal \(SIGKILL)" && victim.logContains("crash point \(point) reached", from: logMark)
                guard crashed else { throw Failure("\(victim.name) ended (\(ended)) without the crash line of \(point)") }
                clock.note("\(victim.name) died at \(point) (\(ended)); restarted on the same data directory")
            } else {
                // The payment never passed the state (it failed earlier, or `pay` chose
                // another provider than the quote): counted, and the victim disarmed.
                notReached = true
                clock.note("\(point) never reached; \(victim.name) restarted without it: \(victim.stop())")
            }
            try victim.start()
        }
        try command.wait(timeout: 300)
        let said = command.outcome
        clock.note("\(arguments[0]): \(said)")
        _ = try? net.hub.rpc.call("hub_automine", [0])
        let blocks = try CrashScenarios.settle(net)

        let after = try net.hub.rpc.balances()
        let received = try payee.walletBalance().total - payeeBefore
        let walletDrop = walletBefore - (try client.walletBalance().total) + (plan.kind == .swapOut ? received : 0)
        let clientDrop = (before.lightningMsat(client.name) ?? 0) - (after.lightningMsat(client.name) ?? 0)
        let providerGain = providers.reduce(Int64(0)) { sum, provider in
            sum + (after.lightningMsat(provider.name) ?? 0) - (before.lightningMsat(provider.name) ?? 0)
        }
        let routing = after.feesCollectedMsat - before.feesCollectedMsat
        let result = command.result
        // A swap-out claimed through the key path also sends its saving to the wallet (issue
        // 17): X is then the least it gets, and exactly X plus that saving.
        let extraSat = plan.kind == .swapOut ? try CoopAudit.keyPathExtra(client, swapID: JSON.string(result?["swap_id"])) : 0
        let amountMsat = (plan.amountSat + extraSat) * 1_000

        // How far the figures are from each expected outcome, in msat; 0 is an exact match.
        let nothingMoved = abs(received) * 1_000 + abs(walletDrop) * 1_000 + abs(clientDrop) + abs(providerGain)
        let expected: Int64
        var detail = "\(plan.kind == .swapOut ? "client wallet" : "carol") +\(formatSats(received)); "
        if plan.isSwap {
            // The pay's own result names the invoice total; the quote's when a crash ate the result.
            let totalMsat = (JSON.int(JSON.find(Demo.totalKeys, in: result ?? [:])) ?? quoteTotal ?? 0) * 1_000
            expected = abs(received * 1_000 - amountMsat) + abs(providerGain - totalMsat) + abs(clientDrop - totalMsat - routing)
                + abs(walletDrop) * 1_000
            detail += "client Lightning -\(formatMsat(clientDrop)) (invoice \(formatMsat(totalMsat)) + routing \(formatMsat(routing))); "
                + "providers +\(formatMsat(providerGain)); client wallet otherwise -\(formatSats(walletDrop))"
        } else {
            let fee = JSON.int(result?["onchain_fee_sat"]) ?? 0
            expected = abs(received * 1_000 - amountMsat) + abs(walletDrop * 1_000 - amountMsat - fee * 1_000) + abs(clientDrop) + abs(providerGain)
            detail += "client wallet -\(formatSats(walletDrop)) (fee \(formatSats(fee))); client Lightning -\(formatMsat(clientDrop)); "
                + "providers +\(formatMsat(providerGain))"
        }
        if plan.kind == .swapIn {
            return swapInOutcome(plan, result: result, said: said, blocks: blocks, walletDrop: walletDrop,
                                 clientGain: -clientDrop, providerGain: providerGain, routing: routing)
        }
        let verdict: Verdict = expected == 0 ? (plan.isSwap ? .paidOut : .sent) : nothingMoved == 0 ? .rolledBack : .neither
        record(plan, verdict: verdict, result: result, carolReceived: plan.kind == .swapOut ? 0 : received)
        // A payment matching neither outcome lost at least the smaller of the two mismatches.
        let unaccounted = verdict == .neither ? max(1, min(expected, nothingMoved)) : 0
        clock.note("\(verdict.rawValue): \(detail); settled in \(blocks) block(s)")
        return Outcome(verdict: verdict, crashed: crashed, notReached: notReached, unaccountedMsat: unaccounted, command: said)
    }

    /// A swap-in's verdict: paid out when the client's Lightning gained exactly X, the
    /// providers' fell by X and the routing fee, and the savings by exactly what the result
    /// says the lock and its fee took; rolled back when no Lightning moved (a refund costs
    /// the two fees, which the accounting check holds the client's books to).
    private func swapInOutcome(_ plan: SoakPlan, result: [String: Any]?, said: String, blocks: Int, walletDrop: Int64,
                               clientGain: Int64, providerGain: Int64, routing: Int64) -> Outcome {
        let amountMsat = plan.amountSat * 1_000
        let spent = JSON.int(result?["savings_spent_sat"])
        let expected = abs(clientGain - amountMsat) + abs(providerGain + amountMsat + routing)
            + abs(walletDrop - (spent ?? -1)) * 1_000
        let nothingMoved = abs(clientGain) + abs(providerGain)
        let verdict: Verdict = expected == 0 ? .paidOut : nothingMoved == 0 ? .rolledBack : .neither
        let detail = "client Lightning +\(formatMsat(clientGain)); providers \(formatMsat(providerGain)) (routing \(formatMsat(routing))); "
            + "savings -\(formatSats(walletDrop)) (the result says \(spent.map(formatSats) ?? "nothing"))"
        clock.note("\(verdict.rawValue): \(detail); settled in \(blocks) block(s)")
        let unaccounted = verdict == .neither ? max(1, min(expected, nothingMoved)) : 0
        return Outcome(verdict: verdict, crashed: false, notReached: false, unaccountedMsat: unaccounted, command: said)
    }

    /// Writes down what moved outside the nodes' own swaps (the accounting check's terms):
    /// a payment from savings leaves the client's wallet (X and the fee its result names)
    /// and reaches carol's; X a swap delivered to carol is the client's swap, to carol a
    /// deposit. A swap-out is the client's own swap: nothing to write.
    private func record(_ plan: SoakPlan, verdict: Verdict, result: [String: Any]?, carolReceived: Int64) {
        let ledger = net.ledger
        switch plan.kind {
        case .payFromSavings:
            // The result names the fee only when the payment went out.
            guard let fee = JSON.int(result?["onchain_fee_sat"]) else { return }
            ledger.withdrawal(client.name, msat: (plan.amountSat + fee) * 1_000, "pay from savings (X + fee)")
            ledger.deposit(carol.name, msat: plan.amountSat * 1_000, "paid from the client's savings")
        case .pay:
            switch verdict {
            case .paidOut: ledger.deposit(carol.name, msat: plan.amountSat * 1_000, "paid by the client's swap")
            // The soak already fails this payment; the books take what carol got, so the
            // accounting check reports the nodes' own mismatches, not this one again.
            case .neither: ledger.deposit(carol.name, msat: carolReceived * 1_000, "received in a payment that was NEITHER")
            case .rolledBack, .sent: break
            }
        case .swapOut, .swapIn:
            break
        }
    }
}
