#if canImport(Glibc)
import Glibc
#endif
import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Synchronization
import Transport
import XCTest

/// The client engine against a scripted provider (real desk, hold invoice, wallet lock)
/// on the in-process hub, whose chain the kernel validates.
final class ClientEngineHubTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testPayingAContactDeliversExactlyXAndSettlesTheInvoice() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        XCTAssertNotNil(decision.choice, "\(decision.debugLines)")
        let destination = fixture.destination

        let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
        XCTAssertEqual(report.amountSat, amount)
        XCTAssertEqual(report.settlement, .settling, "nothing mined yet: committed and settling")
        let claim = try XCTUnwrap(fixture.hub.chain.transaction(report.claimTxid)?.transaction, "the claim is in the mempool")
        XCTAssertEqual(claim.outputs, [TransactionOutput(value: amount, scriptPubKey: destination.script)])
        XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(report.claimTxid), "the kernel verified the claim")

        try await fixture.mineUntilDelivered(report.swapID, amountSat: amount)

        let providerSwaps = await fixture.provider.swaps
        let swap = try XCTUnwrap(providerSwaps.values.first)
        try await clientEventually("the provider's invoice settles") {
            try await fixture.providerLND.lookupInvoice(paymentHash: swap.request.paymentHash).state == .settled
        }
        let kinds = try await fixture.kinds(of: report.swapID)
        for (earlier, later) in zip(["quoted", "accepted", "pay_started", "lock_seen", "lock_verified", "claim_broadcast",
                                     "claim_confirmed", "completed"].dropLast(), ["accepted", "pay_started", "lock_seen",
                                     "lock_verified", "claim_broadcast", "claim_confirmed", "completed"]) {
            let a = try XCTUnwrap(kinds.firstIndex(of: earlier), "\(earlier) in \(kinds)")
            let b = try XCTUnwrap(kinds.firstIndex(of: later), "\(later) in \(kinds)")
            XCTAssertLessThan(a, b, "\(earlier) before \(later) in \(kinds)")
        }
        let events = fixture.progress.all
        for phase in ["quoted", "pay_started", "lock_verified", "claim_broadcast", "completed"] {
            XCTAssertTrue(events.contains { $0.stage.description == phase && $0.atUnix > 0 }, "progress for \(phase)")
        }
        // Each step is reported, and so logged, once: the claim stored again when this node
        // accepts it is not a new step (the daemon's log said claim_broadcast twice).
        XCTAssertEqual(events.filter { $0.stage.description == "claim_broadcast" }.count, 1, "\(events.map(\.description))")
        XCTAssertTrue(events.contains { $0.stage == .quoting })
        // The HTLC attempt's route time lock (LND's total_time_lock) is said once it is out:
        // the provider's HTLC expiry (tip + final delta + 3) + the route's 40 blocks.
        let held = try await fixture.providerLND.lookupInvoice(paymentHash: swap.request.paymentHash)
        let providerExpiry = try XCTUnwrap(held.htlcs.first?.expiryHeight)
        XCTAssertTrue(events.contains { $0.detail.contains("at worst it stays held until height \(providerExpiry + 40),") },
                      "the payment's time lock is said: \(events.map(\.detail)); provider's HTLC expiry \(providerExpiry)")
        XCTAssertTrue(events.contains { $0.stage == .quoting && $0.detail.contains("no fee estimate") },
                      "the hub has no estimate: the fallback claim rate is said, never silent (M-3)")
        let pushes = await fixture.provider.preimagePushes
        XCTAssertEqual(pushes.map(\.swapID), [swap.accept.body.swapID])
        await fixture.shutDown(engine)
    }

    /// Issue 15: the client's LND breaks the send stream with its shutdown line after the
    /// payment started. The swap tracks the payment instead of ending it failed (which
    /// left the HTLC held and never claimed), claims, and X arrives.
    func testASendStreamBrokenAfterItStartedIsTrackedAndTheSwapCompletes() async throws {
        let (fixture, engine) = try await payDespite(.sendStreamError)
        XCTAssertTrue(fixture.progress.all.contains { $0.detail.contains("routerrpc server shutting down") },
                      "the broken stream is reported")
        await fixture.shutDown(engine)
    }

    /// LND-5: the client's LND takes the payment and stops before the stream's first
    /// update, so the send is answered with its shutdown error and no stream. The payment
    /// is under way all the same: the client looks it up before calling the send refused,
    /// follows it, and the swap completes (the error read as a refusal ended it `failed`).
    func testASendAnsweredWithAnErrorAfterLNDTookThePaymentIsFollowedAndTheSwapCompletes() async throws {
        let (fixture, engine) = try await payDespite(.sendErrorAfterStart)
        XCTAssertEqual(fixture.hub.servers["client"]!.handler.faults.sendRequests, 1, "sent once")
        await fixture.shutDown(engine)
    }

    /// Pays X with `fault` armed on the client's LND; returns once X arrived, the
    /// provider's invoice settled and the client's LND reports its payment succeeded.
    private func payDespite(_ fault: LNDFault) async throws -> (ClientEngineFixture, ClientEngine) {
        let fixture = try await ClientEngineFixture(lock: .honest)
        fixture.hub.servers["client"]!.handler.faults.inject(fault)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
        XCTAssertEqual(report.amountSat, amount)
        try await fixture.mineUntilDelivered(report.swapID, amountSat: amount)
        let providerSwaps = await fixture.provider.swaps
        let swap = try XCTUnwrap(providerSwaps.values.first)
        try await clientEventually("the provider's invoice settles") {
            try await fixture.providerLND.lookupInvoice(paymentHash: swap.request.paymentHash).state == .settled
        }
        try await fixture.trackedPaymentSucceeds(swap.request.paymentHash)
        return (fixture, engine)
    }

    /// Issue 15: the client stops while its payment is held by the provider (no lock
    /// yet). On restart it tracks the payment instead of sending it again (LND would
    /// answer 409, and the client never learnt the outcome); the late lock is claimed, the
    /// tracked payment succeeds, X arrives, and the node saw exactly one send.
    func testARestartWhileThePaymentIsHeldTracksItAndNeverSendsAgain() async throws {
        let fixture = try await ClientEngineFixture(lock: .never)
        let first = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let amount = self.amount
        let paying = Task { try await fixture.pay(first, amountSat: amount, route: decision, within: 60) }
        try await clientEventually("the payment is held") {
            guard let id = try await fixture.store.allSwaps(limit: 1).first?.id else { return false }
            return try await fixture.lastKind(of: id) == "payment_in_flight"
        }
        let records = try await fixture.store.allSwaps(limit: 1)
        let id = try XCTUnwrap(records.first).id
        await first.shutDown()
        paying.cancel()
        let faults = fixture.hub.servers["client"]!.handler.faults
        XCTAssertEqual(faults.sendRequests, 1)

        let second = try fixture.engine()
        _ = try await second.recover()
        let providerSwaps = await fixture.provider.swaps
        let swap = try XCTUnwrap(providerSwaps.values.first)
        await fixture.provider.lockLate(swap.accept.body.swapID)
        try await clientEventually("the claim is out") { try await fixture.lastKind(of: id) == "claim_broadcast" }
        try await fixture.mineUntilDelivered(id, amountSat: amount)
        try await fixture.trackedPaymentSucceeds(swap.request.paymentHash)
        XCTAssertEqual(faults.sendRequests, 1, "the payment was sent once, before the restart")
        await fixture.shutDown(second)
    }

    /// Issue 15: the client's LND is down when the payment goes out (its REST port
    /// refuses the connection, so the send certainly never reached it). Tracking waits
    /// for LND; back up, it answers "payment isn't initiated" (NotFound), so the client
    /// sends again, once; the swap completes with exactly X. Each connection made while
    /// LND is "down" goes to a port nothing listens on: the refusal is the kernel's.
    func testASendRefusedWhileLNDIsDownIsSentAgainOnceLNDIsBackWithoutIt() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let loop = fixture.hub.loop
        let closed = try await TCPListener.bind(port: 0, loop: loop)
        let closedPort = closed.port
        await closed.close()
        let down = Mutex(false)
        let server = fixture.hub.servers["client"]!
        let configuration = LNDRESTClient.Configuration(host: "127.0.0.1", port: server.port, macaroon: server.macaroon,
                                                        network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                        subscriptionRetryMilliseconds: 500)
        let lightning = LNDRESTClient(configuration: configuration, sleeper: loop.sleeper) { host, port in
            try await TCPConnection.connect(host: host, port: down.withLock { $0 } ? closedPort : port, loop: loop)
        }
        // LND goes down as the provider's accept leaves: the quote's balance check passed.
        await fixture.provider.setOnAccept { down.withLock { $0 = true } }
        let engine = try fixture.engine(lightning: lightning)
        let decision = try await fixture.route(amountSat: amount)
        let amount = self.amount
        let paying = Task { try await fixture.pay(engine, amountSat: amount, route: decision, within: 120) }
        try await clientEventually("the send is refused") {
            fixture.progress.all.contains { $0.detail.contains("ECONNREFUSED") }
        }
        XCTAssertEqual(server.handler.faults.sendRequests, 0, "nothing reached LND while it was down")
        down.withLock { $0 = false }

        let report = try await paying.value
        XCTAssertEqual(report.amountSat, amount)
        try await fixture.mineUntilDelivered(report.swapID, amountSat: amount)
        XCTAssertEqual(server.handler.faults.sendRequests, 1, "sent again once LND was back, and only once")
        XCTAssertTrue(fixture.progress.all.contains { $0.detail.contains("sending it again") })
        await lightning.shutDown()
        await fixture.shutDown(engine)
    }

    /// Audit H-5: an index counter behind the records (a restored database) hands out an
    /// index whose payment hash a stored client swap already used. The engine refuses it
    /// before the provider hears of it: that preimage may be public.
    func testAPaymentHashOnRecordIsNeverOfferedAgain() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        // The memory store's counter does not move past created swaps: its next index is 0.
        let earlier = SwapRecord(id: "earlier", role: .client, swapIndex: 0, keyScheme: .current, peer: "provider",
                                 createdAt: 1, contract: .object([:]))
        _ = try await fixture.store.create(earlier, firstEvent: "quoted", data: .object([:]), at: 1)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        do {
            let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
            XCTFail("swap \(report.swapID) reused the payment hash of swap earlier")
        } catch let error as ClientEngineError {
            XCTAssertEqual(error, .paymentHashReused(swapID: "earlier"))
            XCTAssertTrue(error.description.contains("peernode recover"), error.description)
        }
        let stored = try await fixture.store.allSwaps(limit: 10).map(\.id)
        XCTAssertEqual(stored, ["earlier"], "nothing was recorded")
        let providerSwaps = await fixture.provider.swaps
        XCTAssertTrue(providerSwaps.isEmpty, "the provider never saw the payment hash")
        await fixture.shutDown(engine)
    }

    func testAShortLockIsNeverClaimedAndThePreimageNeverLeaves() async throws {
        let fixture = try await ClientEngineFixture(lock: .short(by: 1_000))
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let before = try fixture.clientBalanceMsat()

        do {
            _ = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
            XCTFail("a short lock must not be paid out")
        } catch ClientEngineError.swapEnded(let id, let outcome) {
            XCTAssertEqual(outcome.funds, .heldUntilCancelled, "\(outcome)")
            XCTAssertTrue(outcome.reason.contains("wrong"), outcome.reason)
            let kind = try await fixture.lastKind(of: id)
            XCTAssertEqual(kind, "failed")
            let preimage = try await fixture.preimage(ofSwap: id)
            let providerSwaps = await fixture.provider.swaps
        let swap = try XCTUnwrap(providerSwaps.values.first)
            let lock = try XCTUnwrap(swap.lock)
            try fixture.hub.mine(2)
            try await Task.sleep(nanoseconds: 300_000_000)
            XCTAssertEqual(fixture.spends(of: lock.lock.outPoint), [], "no claim of the lock")
            XCTAssertFalse(fixture.chainReveals(preimage), "the preimage is nowhere on chain")
            let pushes = await fixture.provider.preimagePushes
            XCTAssertEqual(pushes, [], "the preimage was never pushed")

            // The payment stays held until the provider cancels; then it comes back.
            XCTAssertLessThan(try fixture.clientBalanceMsat(), before)
            try await fixture.provider.cancelInvoice(of: swap.accept.body.swapID)
            try await clientEventually("the payment returns") { try fixture.clientBalanceMsat() == before }
        }
        await fixture.shutDown(engine)
    }

    func testAProviderThatNeverLocksIsAbandonedByTheGiveUpTimer() async throws {
        let fixture = try await ClientEngineFixture(lock: .never)
        let engine = try fixture.engine(giveUpSeconds: 2)
        let decision = try await fixture.route(amountSat: amount)
        do {
            _ = try await fixture.pay(engine, amountSat: amount, route: decision, within: 30)
            XCTFail("no lock, no claim")
        } catch ClientEngineError.swapEnded(let id, let outcome) {
            XCTAssertEqual(outcome.funds, .heldUntilCancelled)
            let kind = try await fixture.lastKind(of: id)
            XCTAssertEqual(kind, "abandoned")
            let pushes = await fixture.provider.preimagePushes
            XCTAssertEqual(pushes, [])
        }
        await fixture.shutDown(engine)
    }

    /// Audit L-8: the node stopped right after recording `pay_started` and before the
    /// payment left, and came back after the give-up deadline. The resume used to pay the
    /// invoice and arm a timer that had already expired: paid, then given up at once. Now
    /// nothing is paid again and the swap is given up.
    func testAResumePastTheGiveUpDeadlineDoesNotPayAgain() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let store = ClientMemorySwapStore()
        let first = try fixture.engine(giveUpSeconds: 1, store: ClientCrashingStore(store, crashAfter: "pay_started"))
        let decision = try await fixture.route(amountSat: amount)
        let before = try fixture.clientBalanceMsat()
        do {
            _ = try await fixture.pay(first, amountSat: amount, route: decision, within: 60)
            XCTFail("the simulated crash stops the swap before its payment")
        } catch ClientEngineError.store {}
        await first.shutDown()
        let records = try await store.allSwaps(limit: 1)
        let swapID = try XCTUnwrap(records.first).id
        try await Task.sleep(for: .milliseconds(2_100))

        let second = try fixture.engine(giveUpSeconds: 1, store: store)
        _ = try await second.recover()
        try await clientEventually("the swap is given up") { try await store.lastEvent(of: swapID)?.isFinal == true }
        let kind = try await store.lastEvent(of: swapID)?.kind
        XCTAssertEqual(kind, "abandoned")
        try await Task.sleep(for: .milliseconds(500))
        XCTAssertEqual(try fixture.clientBalanceMsat(), before, "nothing was paid after the deadline")
        let swaps = await fixture.provider.swaps
        XCTAssertNil(swaps.values.first?.lock, "the provider never locked: it was never paid")
        await fixture.shutDown(second)
    }

    /// Audit H-1: without zero-conf the client waits for the lock's confirmation; the
    /// wall-clock give-up timer (1 s here, 10 minutes by default) passes meanwhile and must
    /// not abandon the verified lock. The confirmation then brings the claim.
    func testAVerifiedLockAwaitingItsConfirmationIsNotAbandonedByTheGiveUpTimer() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let engine = try fixture.engine(giveUpSeconds: 1, allowsZeroConf: false)
        let decision = try await fixture.route(amountSat: amount)
        let amount = self.amount
        let pay = Task { try await fixture.pay(engine, amountSat: amount, route: decision, within: 60) }
        try await clientEventually("the lock is verified") {
            guard let id = try await fixture.store.allSwaps(limit: 1).first?.id else { return false }
            return try await fixture.lastKind(of: id) == "lock_verified"
        }
        try await Task.sleep(for: .seconds(2))
        let swapRecords = try await fixture.store.allSwaps(limit: 1)
        let id = try XCTUnwrap(swapRecords.first).id
        let waiting = try await fixture.lastKind(of: id)
        XCTAssertEqual(waiting, "lock_verified", "the give-up timer passed; the verified lock is still waited for")
        try fixture.hub.mine(1)
        let report = try await pay.value
        XCTAssertEqual(report.swapID, id)
        try await fixture.mineUntilDelivered(id, amountSat: amount)
        await fixture.shutDown(engine)
    }

    /// A swap whose node stopped right after storing its claim intent (`claim_broadcast`,
    /// nothing broadcast yet), as a crash would leave it; its id.
    private func swapStoppedAtTheClaimIntent(_ fixture: ClientEngineFixture, store: ClientMemorySwapStore) async throws -> String {
        let first = try fixture.engine(store: ClientCrashingStore(store, crashAfter: "claim_broadcast"))
        let decision = try await fixture.route(amountSat: amount)
        do {
            _ = try await fixture.pay(first, amountSat: amount, route: decision, within: 60)
            XCTFail("the simulated crash stops the swap before its broadcast")
        } catch ClientEngineError.store {}
        await first.shutDown()
        let records = try await store.allSwaps(limit: 1)
        return try XCTUnwrap(records.first).id
    }

    /// A swap stopped at its claim intent, with the state its record holds there.
    private func claimIntentState(_ fixture: ClientEngineFixture,
                                  store: ClientMemorySwapStore) async throws -> (String, ClientSwapState) {
        let swapID = try await swapStoppedAtTheClaimIntent(fixture, store: store)
        let stopped = try await store.lastEvent(of: swapID)
        return (swapID, try ClientSwapState(kind: "claim_broadcast", data: XCTUnwrap(stopped).data))
    }

    func testARestartAfterTheClaimIntentBroadcastsTheSameClaimOnce() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let path = "/tmp/peernode-client-restart-\(RandomID.make()).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        // The node's SQLite store, with a crash right after the claim intent is durable.
        let disk = try SQLiteSwapStore.open(path: path)
        let first = try fixture.engine(store: ClientCrashingStore(disk, crashAfter: "claim_broadcast"))
        let decision = try await fixture.route(amountSat: amount)
        do {
            _ = try await fixture.pay(first, amountSat: amount, route: decision, within: 60)
            XCTFail("the simulated crash stops the swap before its broadcast")
        } catch ClientEngineError.store(let what) {
            XCTAssertTrue(what.contains("claim_broadcast"), what)
        }
        await first.shutDown()

        // A new process: a new engine on a fresh connection to the same database file.
        let reopened = try SQLiteSwapStore.open(path: path)
        let records = try await reopened.allSwaps(limit: 1)
        let record = try XCTUnwrap(records.first)
        let swapID = record.id
        let lastEvent = try await reopened.lastEvent(of: swapID)
        let last = try XCTUnwrap(lastEvent)
        XCTAssertEqual(last.kind, "claim_broadcast")
        let stored = try ClientSwapState(kind: last.kind, data: last.data)
        let claim = try XCTUnwrap(stored.claim)
        let lock = try XCTUnwrap(stored.verifiedLock)
        XCTAssertEqual(fixture.spends(of: lock.outPoint), [], "crashed before the broadcast")

        let second = try fixture.engine(store: reopened)
        let resumed = try await second.recover()
        XCTAssertEqual(resumed, [swapID])
        try await clientEventually("the stored claim is broadcast") { fixture.hub.chain.mempoolEntry(claim.txid) != nil }
        try fixture.hub.mine(1)
        try await clientEventually("the swap completes") { try await reopened.lastEvent(of: swapID)?.kind == "completed" }
        XCTAssertEqual(fixture.spends(of: lock.outPoint), [claim], "exactly one claim, the stored one")
        XCTAssertEqual(fixture.hub.backend.verifiedTransactions.filter { $0 == claim.txid }.count, 1,
                       "broadcast once: a rebroadcast would have been verified again")
        _ = try await fixture.contactWallet.sync()
        let received = await fixture.contactWallet.balance()
        XCTAssertEqual(received.total, amount)
        try await clientEventually("the provider settles from the resumed push") {
            await !fixture.provider.settled.isEmpty
        }
        await fixture.shutDown(second)
        await disk.close()
        await reopened.close()
    }

    /// Audit H-2: a node that stopped after signing its claim and before any broadcast
    /// resumes when only 6 blocks are left before the timeout. The provider may refund
    /// from there on: the claim is not broadcast, the preimage is not pushed, and the swap
    /// ends with the payment held until the provider cancels (it never learned the preimage).
    func testAResumedClaimNeverAcceptedIsNotRevealedPastTheCutoff() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let store = ClientMemorySwapStore()
        let swapID = try await swapStoppedAtTheClaimIntent(fixture, store: store)
        let providerSwaps = await fixture.provider.swaps
        let swap = try XCTUnwrap(providerSwaps.values.first)
        let lock = try XCTUnwrap(swap.lock)
        let timeout = Int(swap.contract.terms.timeoutHeight)
        // The node is down until exactly 6 blocks are left (the claim rule needs more).
        try fixture.hub.mine(timeout - TimelockPolicy.firstClaimCutoff - fixture.hub.chain.tip.height)
        XCTAssertEqual(timeout - fixture.hub.chain.tip.height, TimelockPolicy.firstClaimCutoff)

        let second = try fixture.engine(store: store)
        let resumed = try await second.recover()
        XCTAssertEqual(resumed, [swapID])
        try await clientEventually("the swap ends") { try await store.lastEvent(of: swapID)?.isFinal == true }
        let lastEvent = try await store.lastEvent(of: swapID)
        let last = try XCTUnwrap(lastEvent)
        XCTAssertEqual(last.kind, "failed")
        XCTAssertEqual(try ClientSwapState(kind: last.kind, data: last.data).outcome?.funds, .heldUntilCancelled)
        try fixture.hub.mine(1)
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(fixture.spends(of: lock.lock.outPoint), [], "the claim was never broadcast")
        let preimage = try await fixture.preimage(ofSwap: swapID, in: store)
        XCTAssertFalse(fixture.chainReveals(preimage), "the preimage is nowhere on chain")
        let pushes = await fixture.provider.preimagePushes
        XCTAssertEqual(pushes, [], "the preimage was never pushed")
        await fixture.shutDown(second)
    }

    /// Audit L-1: the claim on record is a later version (a fee bump) but an earlier
    /// version is the one that confirmed. The swap recognises its own earlier claim by
    /// its txid (every version signed is kept) and completes instead of waiting forever.
    func testAnEarlierClaimVersionThatConfirmsCompletesTheSwap() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let store = ClientMemorySwapStore()
        let (swapID, stopped) = try await claimIntentState(fixture, store: store)
        var state = stopped
        let original = try XCTUnwrap(state.claim)
        // The first version confirms ...
        _ = try await fixture.hub.backend.broadcast(original)
        try fixture.hub.mine(1)
        // ... while the record holds a later version (its signature does not matter: it
        // conflicts with the confirmed one and is never accepted).
        var bumped = original
        bumped.outputs[0].value -= 500
        state.claim = bumped
        state.claimTxids = [original.txid, bumped.txid]
        _ = try await store.append("claim_broadcast", data: state.json, isFinal: false, to: swapID, at: 0)

        let second = try fixture.engine(store: store)
        _ = try await second.recover()
        try await clientEventually("the swap completes from its first claim version") {
            try await store.lastEvent(of: swapID)?.kind == "completed"
        }
        _ = try await fixture.contactWallet.sync()
        let received = await fixture.contactWallet.balance()
        XCTAssertEqual(received.total, amount)
        // The books count the version that paid, not the last one signed: the destination
        // got the first version's output, and the claim fee is the first version's.
        let record = try await XCTUnwrapAsync(try await store.swap(swapID))
        let books = try SwapAccounting(swaps: [SwapHistory(record: record, events: try await store.events(of: swapID))])
        let entry = try XCTUnwrap(books.entries.first)
        XCTAssertEqual(entry.deliveredSat, received.total, "what the destination received")
        XCTAssertEqual(entry.claimFeeSat, try XCTUnwrap(state.verifiedLock).value - original.outputs[0].value)
        await fixture.shutDown(second)
    }

    /// The node accepted the claim once (the preimage was public in its mempool), the claim
    /// left the mempool, and the node was down past the timeout while the provider refunded
    /// its lock. Restarted, the claim is refused (the lock is spent), the engine looks back
    /// for the spender and, the refund 6 deep, ends the swap saying the payment may be the
    /// provider's, with an alarm. Before `lockSpentElsewhere` it rebroadcast for ever.
    ///
    /// Then the provider settles the held payment as well: the engine, following the payment
    /// after the swap, records its end, raises a second alarm, and the books count the invoice
    /// as lost (they counted zero, and `swaps` said "held", for ever before).
    func testALockRefundedUnderAnAcceptedClaimEndsTheSwapWithAnAlarm() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let store = ClientMemorySwapStore()
        // A pushed preimage is kept: the provider settles when the test says so.
        await fixture.provider.holdSettlement()
        let (swapID, stopped) = try await claimIntentState(fixture, store: store)
        var state = stopped
        state.claimAccepted = true
        _ = try await store.append("claim_broadcast", data: state.json, isFinal: false, to: swapID, at: 0)
        let lock = try XCTUnwrap(state.verifiedLock)
        let timeout = try XCTUnwrap(state.timeoutHeight)
        try fixture.hub.mine(max(0, timeout - fixture.hub.chain.height))
        let refund = try await fixture.provider.refundTheLock()
        try fixture.hub.mine(ClientSwapMachine.spenderFinalDepth)
        // The node's follower went past the refund's blocks with no swap watching the lock
        // (the node was down): only looking back finds it.
        try await fixture.follower.poll()

        let lines = Mutex<[String]>([])
        let second = try fixture.engine(store: store, log: { line in lines.withLock { $0.append(line) } })
        _ = try await second.recover()
        try await clientEventually("the swap ends") { try await store.lastEvent(of: swapID)?.kind == "failed" }
        let last = try await store.lastEvent(of: swapID)
        let ended = try ClientSwapState(kind: "failed", data: XCTUnwrap(last).data)
        XCTAssertEqual(ended.outcome?.funds, .refundedAfterReveal, "\(String(describing: ended.outcome))")
        XCTAssertTrue(ended.outcome?.reason.contains(refund.txid.hex) == true, "\(String(describing: ended.outcome))")
        XCTAssertTrue(lines.withLock { $0 }.contains { $0.hasPrefix("ALARM client swap \(swapID)") }, "an alarm line")
        XCTAssertEqual(fixture.spends(of: lock.outPoint).map(\.txid), [refund.txid], "the refund is the lock's only spend")
        let held = try await ClientEngine.recordedPaymentEnd(swapID, in: store)
        XCTAssertNil(held, "the payment is still held")

        // The provider settles too: it holds the payment and its lock.
        try await fixture.providerLND.settleInvoice(preimage: try await fixture.preimage(ofSwap: swapID, in: store))
        try await clientEventually("the payment's end is recorded") {
            try await ClientEngine.recordedPaymentEnd(swapID, in: store) == .succeeded
        }
        XCTAssertTrue(lines.withLock { $0 }.contains {
            $0.hasPrefix("ALARM client swap \(swapID): the provider settled the held payment")
        }, "\(lines.withLock { $0 })")
        XCTAssertEqual(ClientFundsFate.refundedAfterReveal.after(.succeeded), .lost)
        let record = try await XCTUnwrapAsync(try await store.swap(swapID))
        let books = try SwapAccounting(swaps: [try await SwapHistory.load(record, from: store)])
        let entry = try XCTUnwrap(books.entries.first)
        XCTAssertEqual(entry.outcome, .lost)
        let total = try Signed<Quote>(json: XCTUnwrap(record.contract["quote"])).body.totalSat
        let fee = try XCTUnwrap(entry.routingFeeMsat, "the settled payment's routing fee is recorded")
        XCTAssertEqual(entry.lightningMsat, -total * 1_000 - fee, "the invoice left the Lightning balance")
        XCTAssertEqual(entry.netMsat, entry.lightningMsat, "and nothing came back on chain")
        XCTAssertEqual(books.overall[.client]?.lost, 1)
        await fixture.shutDown(second)
    }

    /// A swap given up while its payment was held, the node stopped, and the provider
    /// cancelling meanwhile: the next start looks the payment up, records that it failed
    /// back, and the swap's fate reads `returned`; the books count zero.
    func testAHeldPaymentThatFailsBackAfterTheSwapEndedIsRecordedAtTheNextStart() async throws {
        let fixture = try await ClientEngineFixture(lock: .never)
        let engine = try fixture.engine(giveUpSeconds: 2)
        let decision = try await fixture.route(amountSat: amount)
        let before = try fixture.clientBalanceMsat()
        var ended: String?
        do {
            _ = try await fixture.pay(engine, amountSat: amount, route: decision, within: 30)
            XCTFail("no lock, no claim")
        } catch ClientEngineError.swapEnded(let id, let outcome) {
            XCTAssertEqual(outcome.funds, .heldUntilCancelled)
            ended = id
        }
        let swapID = try XCTUnwrap(ended)
        await engine.shutDown()  // the node stops; its follow of the payment with it
        let providerSwaps = await fixture.provider.swaps
        try await fixture.provider.cancelInvoice(of: try XCTUnwrap(providerSwaps.values.first).accept.body.swapID)
        try await clientEventually("the payment returns") { try fixture.clientBalanceMsat() == before }
        let unknown = try await ClientEngine.recordedPaymentEnd(swapID, in: fixture.store)
        XCTAssertNil(unknown, "the node was down when the payment failed back")

        let lines = Mutex<[String]>([])
        let second = try fixture.engine(log: { line in lines.withLock { $0.append(line) } })
        _ = try await second.recover()
        try await clientEventually("the payment's end is recorded") {
            try await ClientEngine.recordedPaymentEnd(swapID, in: fixture.store) == .failed
        }
        XCTAssertTrue(lines.withLock { $0 }.contains { $0.contains("client swap \(swapID): the held payment failed back") })
        XCTAssertFalse(lines.withLock { $0 }.contains { $0.hasPrefix("ALARM") }, "nothing was lost")
        XCTAssertEqual(ClientFundsFate.heldUntilCancelled.after(.failed), .returned)
        XCTAssertEqual(ClientFundsFate.heldUntilCancelled.after(nil), .heldUntilCancelled)
        XCTAssertEqual(ClientFundsFate.delivered.after(.succeeded), .delivered, "only a held fate moves on")
        let record = try await XCTUnwrapAsync(try await fixture.store.swap(swapID))
        let books = try SwapAccounting(swaps: [try await SwapHistory.load(record, from: fixture.store)])
        let entry = try XCTUnwrap(books.entries.first)
        XCTAssertEqual(entry.outcome, .failed)
        XCTAssertEqual(entry.netMsat, 0)
        await fixture.shutDown(second)
    }

    /// A rescan (the engine looks back for a lock it may have missed while the provider was
    /// unreachable) reports blocks already seen. They are not new blocks: an unconfirmed
    /// claim is not broadcast again for each of them (a `kill -9` scenario saw 57 broadcasts
    /// of one claim within a second).
    func testARescanOfOldBlocksDoesNotRebroadcastTheClaimForEach() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let report = try await fixture.pay(engine, amountSat: amount, route: decision, within: 60)
        let broadcasts = { fixture.hub.backend.verifiedTransactions.filter { $0 == report.claimTxid }.count }
        XCTAssertEqual(broadcasts(), 1, "the claim went out once")

        let tip = fixture.hub.chain.tip.height
        XCTAssertGreaterThan(tip, 20, "the hub has old blocks to report again")
        await fixture.follower.rescan(fromHeight: tip - 20)
        try await fixture.follower.poll()
        // The replayed blocks reach the engine's mailbox at once and take milliseconds to
        // handle; two seconds leave them all handled while the claim is still unconfirmed.
        try await Task.sleep(for: .seconds(2))
        XCTAssertEqual(broadcasts(), 1, "21 blocks reported again are not 21 new blocks")
        try fixture.hub.mine(1)
        try await clientEventually("the swap completes") { try await fixture.lastKind(of: report.swapID) == "completed" }
        await fixture.shutDown(engine)
    }

    func testAnExpiredQuoteIsRejectedAndNothingIsPaid() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        await fixture.provider.setSwapRequestDelay(400)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        let before = try fixture.clientBalanceMsat()
        do {
            _ = try await fixture.pay(engine, amountSat: amount, route: decision, within: 30)
            XCTFail("the provider refuses an expired quote")
        } catch ClientEngineError.rejected(let code, _) {
            XCTAssertEqual(code, .quoteExpired)
        }
        let records = try await fixture.store.allSwaps(limit: 1)
        let record = try XCTUnwrap(records.first)
        let lastEvent = try await fixture.store.lastEvent(of: record.id)
        let last = try XCTUnwrap(lastEvent)
        XCTAssertEqual(last.kind, "failed")
        let outcome = try XCTUnwrap(try ClientSwapState(kind: last.kind, data: last.data).outcome)
        XCTAssertEqual(outcome.funds, .neverSent)
        // The recorded outcome (what `swap show` and `swaps` print) says the fate once.
        XCTAssertEqual(outcome.description.components(separatedBy: "nothing was paid").count - 1, 1, outcome.description)
        XCTAssertEqual(try fixture.clientBalanceMsat(), before, "nothing paid")
        let swaps = await fixture.provider.swaps
        XCTAssertTrue(swaps.isEmpty)
        await fixture.shutDown(engine)
    }

    /// The check before committing reads what LND lets the client send, not its balance:
    /// with the balance above what the swap needs but the 1% channel reserve and the
    /// funder's anchors and fee buffer eating into it, the engine refuses before anything is paid, where LND would refuse the payment
    /// (FAILURE_REASON_INSUFFICIENT_BALANCE) after the provider had been committed to.
    func testTheCommitCheckLeavesTheReserveAndTheFeeBufferOut() async throws {
        let fixture = try await ClientEngineFixture(lock: .honest)
        let engine = try fixture.engine()
        let decision = try await fixture.route(amountSat: amount)
        // First learn what the swap needs: 1,000 sat is far too little.
        try fixture.hub.lightning.setBalance(node: "client", balanceMsat: 1_000_000)
        var needed: Int64 = 0
        do {
            _ = try await fixture.pay(engine, amountSat: amount, route: decision, within: 30)
            XCTFail("1,000 sat cannot pay \(amount) sat")
        } catch ClientEngineError.insufficientBalance(let balance, let neededSat) {
            XCTAssertEqual(balance, 0, "1,000 sat do not cover the reserve, the anchors and the fee buffer")
            needed = neededSat
        }
        // Enough in the channel, not enough above what LND keeps: its reserve (1% of the
        // balance, > 500 sat), and, the client being the channel's funder, the anchors (660
        // sat) and the fee buffer (6,480 sat).
        let kept: Int64 = 660 + 6_480
        let balanceSat = needed + kept + 500
        try fixture.hub.lightning.setBalance(node: "client", balanceMsat: UInt64(balanceSat) * 1_000)
        let reserve = try fixture.hub.lightning.node("client").reserveMsat / 1_000
        XCTAssertGreaterThan(reserve, 500)
        do {
            _ = try await fixture.pay(engine, amountSat: amount, route: decision, within: 30)
            XCTFail("the reserve cannot be sent")
        } catch ClientEngineError.insufficientBalance(let balance, let neededSat) {
            XCTAssertEqual(neededSat, needed)
            XCTAssertEqual(balance, balanceSat - Int64(reserve) - kept)
        }
        XCTAssertEqual(try fixture.clientBalanceMsat(), UInt64(balanceSat) * 1_000, "nothing paid")
        let swaps = await fixture.provider.swaps
        XCTAssertTrue(swaps.isEmpty, "the provider was never asked to lock")
        await fixture.shutDown(engine)
    }
}
