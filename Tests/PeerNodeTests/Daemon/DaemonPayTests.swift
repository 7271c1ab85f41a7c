import Foundation
import Lightning
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// Three daemons in-process on the hub, with the engines wired as `peernode run` wires
/// them: a provider (provider=1, funded wallet, its own LND node), a client (500,000 sat
/// on its LND node, nothing on chain) and a contact (provider=0) whose wallet receives.
/// `peernode pay` runs as the real binary against the client's control socket.
final class DaemonPayTests: XCTestCase {
    private static let engines = NodeEngines.factory(settings: NodeEngines.Settings(
        followerPollMilliseconds: 200, confirmationWaitMilliseconds: 10_000, giveUpSeconds: 600))

    func testPayAContactThroughAProviderDaemonThenSwapOutThenNoProvider() async throws {
        let fixture = try await DaemonFixture()
        let (provider, carol, client) = try await startProviderCarolAndClient(fixture)
        let miner = Miner(rpc: fixture.rpc)
        do {
            let status = try await client.node.result("status")
            XCTAssertEqual(status["engines"], .object(["provider": .bool(false), "client": .bool(true)]))
            let providerStatus = try await provider.node.result("status")
            XCTAssertEqual(providerStatus["engines"], .object(["provider": .bool(true), "client": .bool(true)]))

            // 1 sat/vB, as on a quiet chain: the provider's on-chain fee for a 20,000 sat swap
            // then stays under the client's 5% fee maximum.
            _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
            // The provider's wallet holds 1 BTC in two coins (a lock's change is unconfirmed
            // until the next block, and only confirmed coins are offered); the client has
            // nothing on chain.
            for _ in 0..<2 {
                let providerFresh = try await provider.node.result("wallet.address")
                let providerAddress = try XCTUnwrap(providerFresh["address"]?.stringValue)
                _ = try await fixture.rpc.call("hub_fund", [.string(providerAddress), .number("0.5")])
            }
            try await waitFor("the provider's wallet is funded") {
                try await provider.node.result("wallet.balance")["confirmed_sat"] == .integer(100_000_000)
            }
            try await saveContacts([("prov", provider), ("carol", carol)], at: client)

            // offers says of a contact without a provider what pay says (it said "refused with not_found").
            let offers = try await client.node.result("offers")
            let carolSkip = offers["skipped"]?.arrayValue?.first { $0["contact"] == .string("carol") }
            XCTAssertEqual(carolSkip?["reason"], .string("runs no provider (it answered not_found)"), "\(offers)")
            // quote: the route and the breakdown, nothing paid.
            let quote = try await client.node.result("quote", ["amount_sat": .integer(20_000), "contact": .string("carol")])
            XCTAssertEqual(quote["provider"]?["name"], .string("prov"))
            XCTAssertEqual(quote["skipped"]?.arrayValue?.first?["contact"], .string("carol"))
            XCTAssertTrue(quote["skipped"]?.arrayValue?.first?["reason"]?.stringValue?.contains("runs no provider") == true)
            let fees = try XCTUnwrap(quote["fees"])
            XCTAssertEqual(fees["amount_sat"], .integer(20_000))
            let invoiceTotal = try XCTUnwrap(fees["invoice_total_sat"]?.int64Value)
            let claimFee = try XCTUnwrap(fees["claim_fee_sat"]?.int64Value)
            XCTAssertGreaterThan(claimFee, 0)
            XCTAssertEqual(invoiceTotal, 20_000 + claimFee + fees["service_fee_sat"]!.int64Value!
                           + fees["provider_onchain_fee_sat"]!.int64Value!)
            let swapsBefore = try await client.node.result("swaps")["swaps"]?.arrayValue?.count
            XCTAssertEqual(swapsBefore, 0, "a quote pays nothing and records no swap")
            // A quote without --contact is an estimate `pay` cannot commit: it says so and how to get one.
            let estimate = try await runCLI(["quote", "20000", "--datadir", client.datadir])
            XCTAssertEqual(estimate.status, 0, estimate.stderr)
            XCTAssertTrue(estimate.stdout.contains("quote only: nothing was paid; for a quote `pay` can commit, ask with "
                                                   + "`peernode quote 20000 --contact <name>`"), estimate.stdout)
            let firm = try await runCLI(["quote", "20000", "--contact", "carol", "--datadir", client.datadir])
            XCTAssertTrue(firm.stdout.contains("quote only: nothing was paid; commit it with `peernode pay carol 20000 --quote "),
                          firm.stdout)
            // Below the offer's range: the smallest amount the user can pay, not the lock it never typed.
            let small = try await client.node.call("quote", ["amount_sat": .integer(5_000), "contact": .string("carol")])
            XCTAssertEqual(small.failureCode, "no_route")
            XCTAssertTrue(small.failureMessage.hasPrefix("no route pays carol 5,000 sat (carol takes only on-chain): "), small.failureMessage)
            XCTAssertTrue(small.failureMessage.contains("prov: the smallest payment its offer allows is 14,"), small.failureMessage)
            XCTAssertTrue(small.failureMessage.contains(" sat (not 5,000 sat)"), small.failureMessage)

            // Money moves only when confirmed: no terminal and no --yes is refused (exit 2),
            // and fees above --max-fee are refused (exit 1); neither records a swap.
            let unconfirmed = try await runCLI(["pay", "carol", "20000", "--datadir", client.datadir])
            XCTAssertEqual(unconfirmed.status, 2, unconfirmed.stderr)
            XCTAssertTrue(unconfirmed.stderr.contains("pay moves money: run it on a terminal to confirm, or pass --yes; "
                                                      + "nothing was paid"), unconfirmed.stderr)
            let tooDear = try await runCLI(["pay", "carol", "20000", "--yes", "--max-fee", "100", "--datadir", client.datadir])
            XCTAssertEqual(tooDear.status, 1, tooDear.stderr)
            XCTAssertTrue(tooDear.stderr.contains("above --max-fee 100 sat; nothing was paid"), tooDear.stderr)
            let swapsRefused = try await client.node.result("swaps")["swaps"]?.arrayValue?.count
            XCTAssertEqual(swapsRefused, 0, "a refused pay records no swap")

            // pay, as a user runs it, while blocks are mined.
            miner.start()
            let pay = try await runCLI(["pay", "carol", "20000", "--yes", "--datadir", client.datadir])
            print("$ peernode pay carol 20000\n" + pay.stderr + pay.stdout + "(exit \(pay.status))")
            XCTAssertEqual(pay.status, 0, pay.stderr)
            let lines = pay.stdout.split(separator: "\n").map(String.init)
            XCTAssertTrue(lines.last?.hasPrefix("sent: the claim is broadcast") == true, pay.stdout)
            XCTAssertTrue(pay.stdout.contains("swap through prov (\(provider.pubky.z32))"), pay.stdout)
            XCTAssertTrue(pay.stdout.contains("carol: runs no provider"), pay.stdout)
            // The same breakdown as the quote.
            for (label, key) in [("amount", "amount_sat"), ("service fee", "service_fee_sat"),
                                 ("provider on-chain fee", "provider_onchain_fee_sat"), ("claim fee", "claim_fee_sat"),
                                 ("routing fee (at most)", "routing_fee_max_sat"),
                                 ("total from spending balance (at most)", "spend_max_sat")] {
                let line = lines.first { $0.hasPrefix("  \(label)  ") }
                XCTAssertEqual(line?.split(separator: " ").suffix(2).joined(separator: " "), Self.sats(fees[key]), label)
            }
            for stage in ["endpoints", "routing", "quoting", "quoted", "accepted", "pay_started", "lock_seen",
                          "lock_verified", "claim_broadcast"] {
                XCTAssertTrue(pay.stderr.contains("] \(stage): "), "no progress line for \(stage)")
            }
            // Amounts in progress lines read as everywhere else: 21,065 sat, never 21065 sat.
            XCTAssertNil(pay.stderr.range(of: #"[0-9]{4,} sat"#, options: .regularExpression).map { pay.stderr[$0] },
                         pay.stderr)
            XCTAssertTrue(pay.stderr.contains("(20,000 sat + claim fee "), pay.stderr)
            // The engine reports the claim's broadcast twice (sent, then accepted): shown once.
            XCTAssertEqual(pay.stderr.components(separatedBy: "] claim_broadcast: ").count - 1, 1, pay.stderr)
            XCTAssertTrue(pay.stderr.contains("swap \(pay.stdout.split(separator: "\n").first { $0.hasPrefix("swap:") }?.split(separator: " ").last ?? "?") "
                                              + "(follow it from anywhere: `peernode swap watch "), "the swap id is named early: \(pay.stderr)")

            // The contact's wallet gets exactly X once mined; both records end in success.
            try await waitFor("carol's wallet holds the payment") {
                try await carol.node.result("wallet.balance")["confirmed_sat"] == .integer(20_000)
            }
            try await waitFor("the provider's swap is settled") {
                let swaps = try await provider.node.result("swaps")["swaps"]?.arrayValue ?? []
                return swaps.count == 1 && swaps[0]["state"] == .string("settled") && swaps[0]["final"] == .bool(true)
            }
            try await waitFor("the client's swap is completed") {
                let swaps = try await client.node.result("swaps")["swaps"]?.arrayValue ?? []
                return swaps.count == 1 && swaps[0]["state"] == .string("completed") && swaps[0]["final"] == .bool(true)
            }
            // The invoice settled: the provider's Lightning node holds exactly its total.
            let providerLightning = try await provider.node.result("status")["lightning"]?["balance_sat"]
            XCTAssertEqual(providerLightning, .integer(invoiceTotal))
            let clientStatus = try await client.node.result("status")
            let clientLightning = try XCTUnwrap(clientStatus["lightning"]?["balance_sat"]?.int64Value)
            // LND's local balance of the channel the client opened: its side less the
            // commitment fee (2,810 sat) and the anchors (660 sat).
            let opened: Int64 = 500_000 - 2_810 - 660
            XCTAssertLessThanOrEqual(clientLightning, opened - invoiceTotal)
            XCTAssertGreaterThanOrEqual(clientLightning, opened - invoiceTotal - fees["routing_fee_max_sat"]!.int64Value!)
            // Under --max-fee the checked quote is the one committed: pay goes through `--quote`
            // (carol has 40,000 sat once it confirms).
            let capped = try await runCLI(["pay", "carol", "20000", "--yes", "--max-fee", "5000", "--datadir", client.datadir])
            XCTAssertEqual(capped.status, 0, capped.stderr)
            XCTAssertTrue(capped.stderr.contains("route: committing quote "), capped.stderr)

            // max_fee_sat (`--max-fee`) skips a provider whose fees in all exceed it: nothing paid.
            let capped2 = try await client.node.call("swap-out", ["amount_sat": .integer(50_000), "max_fee_sat": .integer(100)])
            XCTAssertEqual(capped2.failureCode, "no_route")
            XCTAssertTrue(capped2.failureMessage.contains("prov: its fees come to at most "), capped2.failureMessage)
            XCTAssertTrue(capped2.failureMessage.contains("above --max-fee 100 sat"), capped2.failureMessage)
            XCTAssertTrue(capped2.failureMessage.hasSuffix("nothing was paid"), capped2.failureMessage)

            // swap-out to the client's own wallet, through the control API.
            let collected = Collected()
            let swapOut = try await client.node.client.send(ControlMessage.Request(
                command: "swap-out", args: .object(["amount_sat": .integer(50_000)]))) { collected.append($0) }
            let progress = collected.all
            let out = try swapOut.get()
            XCTAssertEqual(out["status"], .string("sent"))
            XCTAssertEqual(out["own_wallet"], .bool(true))
            XCTAssertEqual(out["fees"]?["amount_sat"], .integer(50_000))
            // The balance left after paying, not the one the route was chosen from.
            let balanceBefore = try XCTUnwrap(out["spending_balance_before_sat"]?.int64Value)
            let balanceAfter = try XCTUnwrap(out["spending_balance_sat"]?.int64Value)
            let invoice = try XCTUnwrap(out["fees"]?["invoice_total_sat"]?.int64Value)
            XCTAssertGreaterThanOrEqual(balanceBefore - balanceAfter, invoice,
                                        "before \(balanceBefore), after \(balanceAfter), invoice \(invoice)")
            XCTAssertFalse(progress.isEmpty)
            XCTAssertTrue(progress.allSatisfy { $0["elapsed_ms"]?.int64Value != nil && $0["stage"]?.stringValue != nil })
            // Both daemons have musig2 on (the default): a key-path claim, whose saving goes
            // to the wallet on a swap-out (issue 17).
            XCTAssertEqual(out["claim_path"], .string("key_path"))
            XCTAssertEqual(out["claim_saved_vb"], .integer(41))
            let saved = try XCTUnwrap(out["claim_saved_sat"]?.int64Value)
            XCTAssertGreaterThan(saved, 0)
            try await waitFor("the client's wallet holds the swap-out and the key path's saving") {
                try await client.node.result("wallet.balance")["confirmed_sat"] == .integer(50_000 + saved)
            }

            // --from savings: only the wallet, directly; refused (nothing paid) when it does not cover it.
            let notCovered = try await client.node.call("pay", ["contact": .string("carol"), "amount_sat": .integer(60_000),
                                                                "from": .string("savings")])
            XCTAssertEqual(notCovered.failureCode, "not_paid")
            // The wallet holds the swap-out and the key path's saving (5 digits: 50,0xx sat).
            let held = String(50_000 + saved)
            XCTAssertTrue(notCovered.failureMessage.hasPrefix("the balances are too small to pay carol 60,000 sat: sending "
                                                              + "directly from savings: savings hold \(held.prefix(2)),\(held.dropFirst(2)) sat, 60,"),
                          notCovered.failureMessage)
            XCTAssertTrue(notCovered.failureMessage.hasSuffix("; nothing was paid"), notCovered.failureMessage)
            let badSource = try await client.node.call("pay", ["contact": .string("carol"), "amount_sat": .integer(1_000),
                                                               "from": .string("bank")])
            XCTAssertEqual(badSource.failureCode, "invalid_request")
            // Savings now cover 30,000 sat and its fee: `pay` sends directly, no swap.
            let direct = try await client.node.result("pay", ["contact": .string("carol"), "amount_sat": .integer(30_000),
                                                              "from": .string("savings")])
            XCTAssertEqual(direct["route"], .string("direct"))
            XCTAssertEqual(direct["status"], .string("sent"))
            try await waitFor("carol's wallet holds the direct payment too") {
                try await carol.node.result("wallet.balance")["confirmed_sat"] == .integer(70_000)
            }
            let clientSwaps = try await client.node.result("swaps")["swaps"]?.arrayValue?.count
            XCTAssertEqual(clientSwaps, 3, "the direct payment is no swap (two pays and a swap-out are)")
            // ... but `swaps` accounts for it beside them.
            let payments = try await client.node.result("swaps")["payments"]?.arrayValue ?? []
            XCTAssertEqual(payments.count, 1)
            XCTAssertEqual(payments.first?["txid"], direct["txid"])
            XCTAssertEqual(payments.first?["amount_sat"], .integer(30_000))
            XCTAssertEqual(payments.first?["contact"], .string("carol"))
            XCTAssertEqual(payments.first?["route"], .string("direct"))
            miner.stop()

            // No provider among the contacts: a clear error, nothing paid, no swap recorded.
            _ = try await client.node.result("contacts.remove", ["contact": .string("prov")])
            let before = try await client.node.result("status")["lightning"]?["balance_sat"]
            let swapsNow = try await client.node.result("swaps")["swaps"]?.arrayValue?.count
            let refused = try await runCLI(["pay", "carol", "60000", "--yes", "--datadir", client.datadir])
            print("$ peernode pay carol 60000   (savings too small, no provider among the contacts)\n" + refused.stderr + refused.stdout
                  + "(exit \(refused.status))")
            XCTAssertEqual(refused.status, 1)
            XCTAssertTrue(refused.stderr.contains("no route pays carol 60,000 sat (carol takes only on-chain)"), refused.stderr)
            XCTAssertTrue(refused.stderr.contains("carol: runs no provider"), refused.stderr)
            XCTAssertTrue(refused.stderr.contains("nothing was paid"), refused.stderr)
            let after = try await client.node.result("status")["lightning"]?["balance_sat"]
            XCTAssertEqual(after, before)
            let swapsAfter = try await client.node.result("swaps")["swaps"]?.arrayValue?.count
            XCTAssertEqual(swapsAfter, swapsNow)
            // A usage error is exit 2.
            let usage = try await runCLI(["pay", "carol", "lots", "--datadir", client.datadir])
            XCTAssertEqual(usage.status, 2)
            // The daemon's refusal names the command once (it read "swap-out: swap-out: ...").
            let badAddress = try await runCLI(["swap-out", "30000", "--to", "bc1qnotregtest", "--yes", "--datadir", client.datadir])
            XCTAssertEqual(badAddress.status, 2, badAddress.stderr)
            XCTAssertTrue(badAddress.stderr.hasPrefix("peernode swap-out: \"bc1qnotregtest\" is not a regtest address"),
                          badAddress.stderr)
            XCTAssertEqual(badAddress.stderr.components(separatedBy: "swap-out:").count - 1, 1, badAddress.stderr)
        } catch {
            miner.stop()
            await stopAll([client, carol, provider], fixture)
            throw error
        }
        await stopAll([client, carol, provider], fixture)
    }

    /// Two `pay` commands at once on one client (found by `peernode-testnet scenarios
    /// concurrent-50`): each command's progress lines are those of its own swap only.
    func testTwoPaysAtOnceEachReportOnlyTheirOwnSwap() async throws {
        let fixture = try await DaemonFixture()
        let (provider, carol, client) = try await startProviderCarolAndClient(fixture)
        let miner = Miner(rpc: fixture.rpc)
        do {
            try await fixture.fundProviderAndSaveContacts(provider: provider, carol: carol, client: client)
            miner.start()
            let first = Collected(), second = Collected()
            let control = client.node.client
            async let paidFirst = control.send(ControlMessage.Request(
                command: "pay", args: .object(["contact": .string("carol"), "amount_sat": .integer(20_000)]))) { first.append($0) }
            async let paidSecond = control.send(ControlMessage.Request(
                command: "pay", args: .object(["contact": .string("carol"), "amount_sat": .integer(21_000)]))) { second.append($0) }
            let results = [try await paidFirst.get(), try await paidSecond.get()]
            miner.stop()
            let ids = results.map { $0["swap_id"]?.stringValue }
            XCTAssertNotNil(ids[0])
            XCTAssertNotNil(ids[1])
            XCTAssertNotEqual(ids[0], ids[1])
            for (index, lines) in [first.all, second.all].enumerated() {
                let named = Set(lines.compactMap { $0["swap_id"]?.stringValue })
                XCTAssertEqual(named, Set([ids[index]].compactMap { $0 }), "pay \(index + 1) showed the progress of \(named)")
                XCTAssertTrue(lines.contains { $0["stage"] == .string("claim_broadcast") }, "pay \(index + 1) saw its claim go out")
            }
        } catch {
            miner.stop()
            await stopAll([client, carol, provider], fixture)
            throw error
        }
        await stopAll([client, carol, provider], fixture)
    }

    /// `max`, a swap-out that is "committed and settling" when no block comes within the
    /// wait, and the manual `swap claim` / `swap refund` answers on both sides.
    func testMaxSettlingSwapOutAndManualClaimRefund() async throws {
        let fixture = try await DaemonFixture()
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let engines = NodeEngines.factory(settings: NodeEngines.Settings(
            followerPollMilliseconds: 200, confirmationWaitMilliseconds: 1_500, giveUpSeconds: 600))
        let provider = try await startNode(fixture, "prov", lightning: providerLN, extra: ["provider=1"], engines: engines)
        let client = try await startNode(fixture, "client", lightning: fixture.lightning, extra: ["provider=0"], engines: engines)
        do {
            _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
            let providerFresh = try await provider.node.result("wallet.address")
            _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(providerFresh["address"]?.stringValue)), .number("1")])
            try await waitFor("the provider's wallet is funded") {
                try await provider.node.result("wallet.balance")["confirmed_sat"] == .integer(100_000_000)
            }
            _ = try await client.node.result("contacts.add", [
                "name": .string("prov"), "pubky": .string(provider.pubky.z32), "host": .string("127.0.0.1"),
                "port": .integer(provider.node.ready.listenPort)])

            // max: verified by real quotes, within the budget (balance minus the routing reserve).
            let max = try await client.node.result("max")
            let maxSat = try XCTUnwrap(max["max_sat"]?.int64Value)
            let budget = try XCTUnwrap(max["budget_sat"]?.int64Value)
            // What LND lets it send: 500,000 sat less the channel's 1% reserve, 5,000 sat, and,
            // as the channel's funder, its anchors (660 sat) and fee buffer (6,480 sat): the
            // balance would promise a payment LND refuses with INSUFFICIENT_BALANCE.
            XCTAssertEqual(max["balance_sat"], .integer(487_860))
            XCTAssertLessThan(budget, 487_860)
            XCTAssertGreaterThan(maxSat, 400_000)
            XCTAssertLessThanOrEqual(try XCTUnwrap(max["fees"]?["invoice_total_sat"]?.int64Value), budget)
            XCTAssertEqual(max["provider"]?["name"], .string("prov"))

            // No block within the wait: the claim is out, the transfer committed and settling.
            let out = try await client.node.result("swap-out", ["amount_sat": .integer(20_000)])
            XCTAssertEqual(out["status"], .string("sent"))
            XCTAssertEqual(out["settlement"], .string("settling"))
            let swapID = try XCTUnwrap(out["swap_id"]?.stringValue)
            let claimTxid = try XCTUnwrap(out["claim_txid"]?.stringValue)

            // swap claim on a swap whose claim is out: the recovery path broadcasts the same claim.
            let claim = try await client.node.result("swap.claim", ["id": .string(swapID)])
            XCTAssertEqual(claim["status"], .string("claim_broadcast"))
            XCTAssertEqual(claim["claim_txid"], .string(claimTxid))
            // swap refund is the provider's: the client is told where its funds are.
            let clientRefund = try await client.node.call("swap.refund", ["id": .string(swapID)])
            XCTAssertEqual(clientRefund.failureCode, "not_refundable")
            XCTAssertTrue(clientRefund.failureMessage.contains("the provider refunds its own lock"), clientRefund.failureMessage)

            // The provider settled on the pushed preimage: nothing to refund, and it says why.
            try await waitFor("the provider's swap is settled") {
                let swaps = try await provider.node.result("swaps")["swaps"]?.arrayValue ?? []
                return swaps.first?["state"] == .string("settled")
            }
            let providerSwaps = try await provider.node.result("swaps")
            let providerSwapID = try XCTUnwrap(providerSwaps["swaps"]?.arrayValue?.first?["id"]?.stringValue)
            let refund = try await provider.node.call("swap.refund", ["id": .string(providerSwapID)])
            XCTAssertEqual(refund.failureCode, "not_refundable")
            XCTAssertTrue(refund.failureMessage.contains("the client claimed the lock and the invoice is settled"),
                          refund.failureMessage)

            // One block: the client's swap completes; a claim by hand now says it is final.
            _ = try await fixture.rpc.call("hub_mine", [.number("1")])
            try await waitFor("the client's swap is completed") {
                let swaps = try await client.node.result("swaps")["swaps"]?.arrayValue ?? []
                return swaps.first?["state"] == .string("completed")
            }
            let late = try await client.node.call("swap.claim", ["id": .string(swapID)])
            XCTAssertEqual(late.failureCode, "not_claimable")
            XCTAssertTrue(late.failureMessage.contains("is final (completed)"), late.failureMessage)
            let unknown = try await client.node.call("swap.claim", ["id": .string("nope")])
            XCTAssertEqual(unknown.failureCode, "not_found")

            // max with a balance under the routing reserve says so (it said "a budget of -1 sat").
            _ = try await fixture.rpc.call("hub_ln_setbalance", [.string("alice"), .number("0")])
            let empty = try await client.node.call("max")
            XCTAssertEqual(empty.failureCode, "no_route")
            XCTAssertEqual(empty.failureMessage, "the spending balance of 0 sat does not cover the routing reserve of 1 sat: "
                           + "nothing can be sent")
        } catch {
            await stopAll([client, provider], fixture)
            throw error
        }
        await stopAll([client, provider], fixture)
    }

    // MARK: helpers

    /// A provider keeps its offers in memory and a client caches them for minutes: after
    /// the provider restarts, the client's cached offer names an id the provider no longer
    /// knows and its QuoteRequest is refused `not_found` ("no such offer"). `pay` must ask
    /// the contacts again and go through, not fail (found by `peernode-testnet soak`).
    func testPayAfterTheProviderRestartsAsksForAFreshOffer() async throws {
        let fixture = try await DaemonFixture()
        let started = try await startProviderCarolAndClient(fixture)
        var provider = started.provider
        let (carol, client) = (started.carol, started.client)
        let miner = Miner(rpc: fixture.rpc)
        do {
            try await fixture.fundProviderAndSaveContacts(provider: provider, carol: carol, client: client)
            let port = provider.node.ready.listenPort
            miner.start()
            let first = try await client.node.result("pay", ["contact": .string("carol"), "amount_sat": .integer(20_000)])
            XCTAssertEqual(first["route"], .string("swap"))

            // The same data directory and port: the contact entry still reaches it.
            try await provider.node.stop()
            let restarted = try await fixture.start(provider.datadir, overrides: [
                ConfigEntry(key: "listen", value: "127.0.0.1:\(port)", origin: ConfigEntry.commandLine)], engines: Self.engines)
            provider = provider.restarted(as: restarted)

            switch try await client.node.call("pay", ["contact": .string("carol"), "amount_sat": .integer(30_000)]) {
            case .success(let second):
                XCTAssertEqual(second["route"], .string("swap"))
                XCTAssertEqual(second["provider"]?["name"], .string("prov"))
            case .failure(let error):
                XCTFail("pay after the provider restarted: \(error)")
                throw error
            }
            try await waitFor("carol's wallet holds both payments") {
                try await carol.node.result("wallet.balance")["confirmed_sat"] == .integer(50_000)
            }

            // `quote` asks the provider for a firm quote too: after another restart it must
            // also ask for a fresh offer instead of failing.
            try await provider.node.stop()
            let again = try await fixture.start(provider.datadir, overrides: [
                ConfigEntry(key: "listen", value: "127.0.0.1:\(port)", origin: ConfigEntry.commandLine)], engines: Self.engines)
            provider = provider.restarted(as: again)
            switch try await client.node.call("quote", ["contact": .string("carol"), "amount_sat": .integer(30_000)]) {
            case .success(let quote):
                XCTAssertNotNil(quote["quote_id"]?.stringValue, "\(quote)")
                XCTAssertEqual(quote["provider"]?["name"], .string("prov"))
            case .failure(let error):
                XCTFail("quote after the provider restarted: \(error)")
                throw error
            }
            miner.stop()
        } catch {
            miner.stop()
            await stopAll([client, carol, provider], fixture)
            throw error
        }
        await stopAll([client, carol, provider], fixture)
    }

    /// A client caches each provider's offer until it expires, but the offer's limits come
    /// from balances that move: a provider with no Lightning funds lists no
    /// `onchain_to_ln`, one with a small wallet a small `ln_to_onchain` maximum. Once they
    /// have the funds, a swap the cached offer cannot carry must ask the contacts again and
    /// go through, not fail `no_route` until the cache expires (found by
    /// `peernode-testnet soak --seed 1796354131733`: a provider paid on Lightning in one
    /// swap was refused a swap-in the next second).
    func testASwapTheCachedOfferCannotCarryAsksForAFreshOffer() async throws {
        let fixture = try await DaemonFixture()
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let provider = try await startNode(fixture, "prov", lightning: providerLN, extra: ["provider=1", "submarine=1"])
        let client = try await startNode(fixture, "client", lightning: fixture.lightning, extra: ["provider=0"])
        let miner = Miner(rpc: fixture.rpc)
        do {
            _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
            for (node, btc, sat) in [(provider, "0.0003", 30_000), (client, "0.005", 500_000)] {
                let fresh = try await node.node.result("wallet.address")
                _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number(btc)])
                try await waitFor("a wallet holds \(sat) sat") {
                    try await node.node.result("wallet.balance")["confirmed_sat"] == .integer(Int64(sat))
                }
            }
            _ = try await client.node.result("contacts.add", [
                "name": .string("prov"), "pubky": .string(provider.pubky.z32), "host": .string("127.0.0.1"),
                "port": .integer(provider.node.ready.listenPort)])

            // No Lightning funds: the offer (now cached) lists no onchain_to_ln.
            let refused = try await client.node.call("swap-in", ["amount_sat": .integer(20_000)])
            XCTAssertEqual(refused.failureCode, "no_route", refused.failureMessage)
            _ = try await fixture.rpc.call("hub_ln_setbalance", [.string("prov"), .number("500000")])
            miner.start()
            switch try await client.node.call("swap-in", ["amount_sat": .integer(20_000)]) {
            case .success(let paid):
                XCTAssertEqual(paid["status"], .string("paid"), "\(paid)")
            case .failure(let error):
                XCTFail("swap-in once the provider has Lightning funds: \(error)")
                throw error
            }
            miner.stop()

            // A 30,000 sat wallet: the offer (cached again) carries no 40,000 sat swap-out.
            let small = try await client.node.call("swap-out", ["amount_sat": .integer(40_000)])
            XCTAssertEqual(small.failureCode, "no_route", small.failureMessage)
            let fresh = try await provider.node.result("wallet.address")
            _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.5")])
            try await waitFor("the provider's wallet is funded") {
                (try await provider.node.result("wallet.balance")["confirmed_sat"]?.int64Value ?? 0) >= 50_000_000
            }
            miner.start()
            switch try await client.node.call("swap-out", ["amount_sat": .integer(40_000)]) {
            case .success(let swapped):
                XCTAssertEqual(swapped["provider"]?["name"], .string("prov"), "\(swapped)")
            case .failure(let error):
                XCTFail("swap-out once the provider's wallet is funded: \(error)")
                throw error
            }
            miner.stop()
        } catch {
            miner.stop()
            await stopAll([client, provider], fixture)
            throw error
        }
        await stopAll([client, provider], fixture)
    }

    /// The other way round: the cached offer promises more than the provider can now pay
    /// (another swap spent its Lightning balance), so the provider refuses the quote with
    /// `insufficient_liquidity` before anything is locked. The swap must ask the contacts
    /// again and go through the provider that can carry it, not fail `not_paid` (found by
    /// the CI's `peernode-testnet soak`, seed 1796524348697: two swap-ins refused in a row
    /// while the other provider had the funds).
    func testASwapTheCachedOfferPromisesTooMuchForAsksForAFreshOffer() async throws {
        let fixture = try await DaemonFixture()
        let cheapLN = try await fixture.hub.lightning.addNode(name: "cheap", balanceSat: 500_000)
        let dearLN = try await fixture.hub.lightning.addNode(name: "dear", balanceSat: 500_000)
        let cheap = try await startNode(fixture, "cheap", lightning: cheapLN,
                                        extra: ["provider=1", "submarine=1", "submarine_base_fee_sat=100"])
        let dear = try await startNode(fixture, "dear", lightning: dearLN,
                                       extra: ["provider=1", "submarine=1", "submarine_base_fee_sat=900"])
        let client = try await startNode(fixture, "client", lightning: fixture.lightning, extra: ["provider=0"])
        let miner = Miner(rpc: fixture.rpc)
        try await stoppingAfterwards([client, cheap, dear], fixture, miner: miner) {
            _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
            for node in [cheap, dear, client] {
                let fresh = try await node.node.result("wallet.address")
                _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.005")])
                try await waitFor("a wallet holds 500,000 sat") {
                    try await node.node.result("wallet.balance")["confirmed_sat"] == .integer(500_000)
                }
            }
            try await saveContacts([("cheap", cheap), ("dear", dear)], at: client)
            miner.start()
            // Both offers are now cached; the cheaper provider carries the first swap-in.
            let first = try await client.node.result("swap-in", ["amount_sat": .integer(20_000)])
            XCTAssertEqual(first["provider"]?["name"], .string("cheap"), "\(first)")
            miner.stop()

            // Its Lightning balance falls under the next swap-in; its cached offer still lists 480,000.
            _ = try await fixture.rpc.call("hub_ln_setbalance", [.string("cheap"), .number("10000")])
            miner.start()
            // Before the fix: "the provider refused (insufficient_liquidity) ...; nothing was paid".
            let paid = try await client.node.result("swap-in", ["amount_sat": .integer(40_000)])
            XCTAssertEqual(paid["status"], .string("paid"), "\(paid)")
            XCTAssertEqual(paid["provider"]?["name"], .string("dear"), "\(paid)")
        }
    }

    /// Three hostile providers (`HostileProvider`), each advertising liquidity in offers
    /// cheaper than anyone's: one refuses every quote (`insufficient_liquidity`), one signs
    /// its quotes with another key, one never answers. Each gains only the client's failure.
    /// Before anything is locked the client gets past each (a refusal of an offer may first
    /// make it ask every contact again) and the swap-out goes through the honest provider,
    /// with the three passed over listed under `skipped`.
    func testASwapGoesPastProvidersThatFailTheirQuotesToTheNextRanked() async throws {
        let fixture = try await DaemonFixture()
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let provider = try await startNode(fixture, "prov", lightning: providerLN, extra: ["provider=1"])
        let client = try await startNode(fixture, "client", lightning: fixture.lightning, extra: ["provider=0"])
        let hostile = [
            ("liar", try await HostileProvider.start(.refusesQuotes, loop: fixture.loop, seed: 0x6c)),
            ("forger", try await HostileProvider.start(.signsQuotesWithAnotherKey, loop: fixture.loop, seed: 0x70)),
            ("staller", try await HostileProvider.start(.neverAnswersQuotes, loop: fixture.loop, seed: 0x74)),
        ]
        let miner = Miner(rpc: fixture.rpc)
        defer { Task { for (_, peer) in hostile { await peer.shutDown() } } }
        try await stoppingAfterwards([client, provider], fixture, miner: miner) {
            _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
            let fresh = try await provider.node.result("wallet.address")
            _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.5")])
            try await waitFor("the provider's wallet is funded") {
                try await provider.node.result("wallet.balance")["confirmed_sat"] == .integer(50_000_000)
            }
            try await saveContacts([("prov", provider)], at: client)
            for (name, peer) in hostile {
                var arguments = peer.contactArguments
                arguments["name"] = .string(name)
                _ = try await client.node.result("contacts.add", arguments)
            }

            miner.start()
            // Before the fix: "the provider refused (insufficient_liquidity) ...; nothing was paid",
            // "... signature ...", or "provider: no answer ...", whichever ranked first.
            let out = try await client.node.result("swap-out", ["amount_sat": .integer(30_000)])
            XCTAssertEqual(out["status"], .string("sent"), "\(out)")
            XCTAssertEqual(out["provider"]?["name"], .string("prov"), "\(out)")
            let skipped = out["skipped"]?.arrayValue ?? []
            for (name, peer) in hostile {
                // Its cached offer may be refused once and asked for again, never more.
                XCTAssertTrue((1...2).contains(peer.quotesAsked), "\(name) was asked \(peer.quotesAsked) times")
                XCTAssertTrue(skipped.contains { $0["contact"] == .string(name) }, "\(name) is listed as passed over: \(out)")
            }
            let liar = skipped.first { $0["contact"] == .string("liar") }?["reason"]?.stringValue ?? ""
            XCTAssertTrue(liar.contains("insufficient_liquidity"), liar)

            // The next payment tries the three last (`QuoteFailures`): the honest provider carries
            // it and none of them is asked (the staller would cost it 15 s again).
            let asked = hostile.map { $0.1.quotesAsked }
            let again = try await client.node.result("swap-out", ["amount_sat": .integer(25_000)])
            XCTAssertEqual(again["provider"]?["name"], .string("prov"), "\(again)")
            XCTAssertEqual(hostile.map { $0.1.quotesAsked }, asked)
        }
    }

    /// The liar on the submarine path: a swap-in's quote (savings -> Lightning) goes past it
    /// to the honest provider's fresh offer, and the swap-in then tries it last.
    func testASwapInGoesPastAProviderThatRefusesEveryQuoteToTheNextRanked() async throws {
        let fixture = try await DaemonFixture()
        let providerLN = try await fixture.hub.lightning.addNode(name: "dear", balanceSat: 500_000)
        let provider = try await startNode(fixture, "dear", lightning: providerLN, extra: ["provider=1", "submarine=1"])
        let client = try await startNode(fixture, "client", lightning: fixture.lightning, extra: ["provider=0"])
        let liar = try await HostileProvider.start(.refusesQuotes, loop: fixture.loop, seed: 0x6c)
        let miner = Miner(rpc: fixture.rpc)
        defer { Task { await liar.shutDown() } }
        try await stoppingAfterwards([client, provider], fixture, miner: miner) {
            _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
            for node in [provider, client] {
                let fresh = try await node.node.result("wallet.address")
                _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.005")])
                try await waitFor("a wallet holds 500,000 sat") {
                    try await node.node.result("wallet.balance")["confirmed_sat"] == .integer(500_000)
                }
            }
            try await saveContacts([("dear", provider)], at: client)
            var arguments = liar.contactArguments
            arguments["name"] = .string("liar")
            _ = try await client.node.result("contacts.add", arguments)
            // `quote --from savings` (a swap-in's quote) goes past it too.
            let quoted = try await client.node.result("quote", ["amount_sat": .integer(30_000), "from": .string("savings")])
            XCTAssertEqual(quoted["provider"]?["name"], .string("dear"), "\(quoted)")
            XCTAssertEqual(quoted["skipped"]?.arrayValue?.map { $0["contact"] }, [.string("liar")], "\(quoted)")
            XCTAssertEqual(liar.quotesAsked, 2, "its first offer, then its fresh one")

            miner.start()
            let paid = try await client.node.result("swap-in", ["amount_sat": .integer(40_000)])
            XCTAssertEqual(paid["status"], .string("paid"), "\(paid)")
            XCTAssertEqual(paid["provider"]?["name"], .string("dear"), "\(paid)")
            XCTAssertEqual(liar.quotesAsked, 2, "tried last, after the honest provider")
            XCTAssertEqual(paid["skipped"], .array([]), "\(paid)")
            XCTAssertEqual(paid["alternatives"]?.arrayValue?.map { $0["contact"] }, [.string("liar")], "\(paid)")
        }
    }

    /// Issue 19's accounting invariant on real daemons: after a payment to a contact and a
    /// swap-out, every swap final, each node's `report` net equals the change of its
    /// on-chain plus Lightning balance less what the hub deposited (the provider's 1 BTC),
    /// to the msat; the client's routing fees are recorded, none is left out.
    func testReportNetEqualsEachNodesBalanceChange() async throws {
        let fixture = try await DaemonFixture()
        let (provider, carol, client) = try await startProviderCarolAndClient(fixture)
        let miner = Miner(rpc: fixture.rpc)
        do {
            func worthMsat(_ node: Node) async throws -> Int64 {
                let status = try await node.node.result("status")
                return try XCTUnwrap(status["wallet"]?["total_sat"]?.int64Value) * 1_000
                    + (try XCTUnwrap(status["lightning"]?["balance_msat"]?.int64Value))
            }
            let clientBefore = try await worthMsat(client), providerBefore = try await worthMsat(provider)
            try await fixture.fundProviderAndSaveContacts(provider: provider, carol: carol, client: client)
            let deposits: [String: Int64] = ["client": 0, "prov": 100_000_000 * 1_000]
            miner.start()
            _ = try await client.node.result("pay", ["contact": .string("carol"), "amount_sat": .integer(20_000)])
            let out = try await client.node.result("swap-out", ["amount_sat": .integer(30_000)])
            // The key path's saving goes to the wallet too (issue 17); the books must count it.
            let saved = try XCTUnwrap(out["claim_saved_sat"]?.int64Value)
            XCTAssertGreaterThan(saved, 0)
            try await waitFor("every swap is final on both sides, the client's routing fees recorded", seconds: 120) {
                for node in [client, provider] {
                    let report = try await node.node.result("report")
                    guard report["in_flight"]?.arrayValue?.isEmpty == true,
                          report["swaps"]?.arrayValue?.count == 2 else { return false }
                }
                let clientReport = try await client.node.result("report")
                return clientReport["overall"]?["client"]?["routing_fee_unrecorded"] == .integer(0)
            }
            try await waitFor("the client's wallet holds the swap-out") {
                try await client.node.result("wallet.balance")["confirmed_sat"] == .integer(30_000 + saved)
            }
            miner.stop()
            for (name, node, before) in [("client", client, clientBefore), ("prov", provider, providerBefore)] {
                let report = try await node.node.result("report")
                let net = try XCTUnwrap(report["net_msat"]?.int64Value)
                let change = try await worthMsat(node) - before - (deposits[name] ?? 0)
                XCTAssertEqual(net, change, "\(name): report \(report)")
                XCTAssertNotEqual(net, 0, name)
            }
            // The provider earned: the two quotes' service and on-chain fees less its two lock fees.
            let earned = try await provider.node.result("report")["overall"]?["provider"]
            XCTAssertEqual(earned?["completed"], .integer(2))
            XCTAssertGreaterThan(try XCTUnwrap(earned?["net_msat"]?.int64Value), 0)
            let paid = try await client.node.result("report")["overall"]?["client"]
            XCTAssertGreaterThan(try XCTUnwrap(paid?["routing_fee_msat"]?.int64Value), 0, "the hub's routes charge fees")
            // The human report: the provider's totals row and the net, as `report` prints amounts.
            let providerNet = try XCTUnwrap(earned?["net_msat"]?.int64Value)
            XCTAssertEqual(providerNet % 1_000, 0, "the provider's money is whole sats")
            let printed = try await runCLI(["report", "--datadir", provider.datadir])
            XCTAssertEqual(printed.status, 0, printed.stderr)
            XCTAssertTrue(printed.stdout.contains("net, both roles: \(Self.sats(.integer(providerNet / 1_000)))"), printed.stdout)
            XCTAssertTrue(printed.stdout.split(separator: "\n").contains { $0.hasPrefix("provider") && $0.contains(" 2 ") },
                          printed.stdout)
            XCTAssertFalse(printed.stdout.contains("in flight"), printed.stdout)
            // --since: a day after every swap counts none of them.
            let later = try await client.node.result("report", ["since": .string("2999-01-01")])
            XCTAssertEqual(later["swaps"], .array([]))
            XCTAssertEqual(later["net_msat"], .integer(0))
            let bad = try await client.node.call("report", ["since": .string("yesterday")])
            XCTAssertEqual(bad.failureCode, "invalid_request")
        } catch {
            miner.stop()
            await stopAll([client, carol, provider], fixture)
            throw error
        }
        await stopAll([client, carol, provider], fixture)
    }

    private typealias Node = HubDaemonNode

    private func startNode(_ fixture: DaemonFixture, _ name: String, lightning: LightningEndpoint,
                           extra: [String], engines: @escaping SwapEngineFactory = DaemonPayTests.engines) async throws -> Node {
        try await fixture.startNode(name, lightning: lightning, extra: extra, engines: engines)
    }

    /// Three daemons on the hub: `prov` (a provider, no Lightning funds yet), `carol` (runs no
    /// provider) and `client` (the fixture's Lightning node).
    private func startProviderCarolAndClient(_ fixture: DaemonFixture) async throws -> (provider: Node, carol: Node, client: Node) {
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let carolLN = try await fixture.hub.lightning.addNode(name: "carol", balanceSat: 0)
        let provider = try await startNode(fixture, "prov", lightning: providerLN, extra: ["provider=1"])
        // carol takes on-chain only: a contact taking Lightning would be paid directly.
        let carol = try await startNode(fixture, "carol", lightning: carolLN, extra: ["provider=0", "accept_lightning=0"])
        let client = try await startNode(fixture, "client", lightning: fixture.lightning, extra: ["provider=0"])
        return (provider, carol, client)
    }

    /// Saves each named node as a contact of `client`, at its listening port on loopback.
    private func saveContacts(_ contacts: [(String, Node)], at client: Node) async throws {
        for (name, node) in contacts {
            _ = try await client.node.result("contacts.add", [
                "name": .string(name), "pubky": .string(node.pubky.z32), "host": .string("127.0.0.1"),
                "port": .integer(node.node.ready.listenPort)])
        }
    }

    /// Runs `body`, then stops the miner, the nodes and the fixture, whether it threw or not.
    private func stoppingAfterwards(_ nodes: [Node], _ fixture: DaemonFixture, miner: Miner,
                                    _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            miner.stop()
            await stopAll(nodes, fixture)
            throw error
        }
        miner.stop()
        await stopAll(nodes, fixture)
    }

    private func stopAll(_ nodes: [Node], _ fixture: DaemonFixture) async {
        for node in nodes { try? await node.node.stop() }
        await fixture.shutDown()
    }

    private func waitFor(_ what: String, seconds: Int = 60, file: StaticString = #filePath, line: UInt = #line,
                         _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        XCTFail("timed out waiting until \(what)", file: file, line: line)
        throw CancellationError()
    }

    /// As the CLI prints amounts: `1,234 sat`.
    private static func sats(_ value: JSONValue?) -> String {
        guard let amount = value?.int64Value else { return "-" }
        let digits = Array(String(amount))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return grouped + " sat"
    }

    /// The `peernode` binary next to the test bundle, run off the cooperative pool (the
    /// daemons it talks to run in this process).
    private func runCLI(_ arguments: [String]) async throws -> ProductOutcome {
        let executable = try productExecutable("peernode")
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runProduct(executable, arguments) })
            }
        }
    }

}

/// Mines a block every second while a swap runs (locks and claims confirm as on a live chain).
private final class Miner: @unchecked Sendable {
    private let rpc: BitcoinCoreRPC
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    init(rpc: BitcoinCoreRPC) { self.rpc = rpc }

    func start() {
        let rpc = self.rpc
        lock.withLock {
            task = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 1_000_000_000)
                    _ = try? await rpc.call("hub_mine", [.number("1")])
                }
            }
        }
    }

    func stop() {
        lock.withLock {
            task?.cancel()
            task = nil
        }
    }
}

/// Progress lines as they arrive.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [JSONValue] = []

    func append(_ line: JSONValue) { lock.withLock { lines.append(line) } }
    var all: [JSONValue] { lock.withLock { lines } }
}
