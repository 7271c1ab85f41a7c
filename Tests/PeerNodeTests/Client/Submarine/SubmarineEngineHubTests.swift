import Bitcoin
import HTLC
import Lightning
import Offers
import Regtest
@testable import PeerNode
import TestSupport
import Transport
import XCTest

/// The submarine client engine against a scripted provider on the in-process hub, whose
/// chain the kernel validates: the lock is funded by the real wallet, the provider pays on
/// the hub's Lightning and claims with the real HTLC types, the refund is the engine's.
final class SubmarineEngineHubTests: XCTestCase {
    private let amount: Int64 = 20_000

    /// A contact's invoice paid from savings: the lock confirms, the provider pays and
    /// claims, the claim's witness gives the client the preimage, the swap completes.
    /// Savings fall by exactly the lock total and its fee; the payee gets exactly X.
    func testPayingAContactsInvoiceFromSavingsLearnsThePreimageFromTheClaim() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let before = try await fixture.savings()
        XCTAssertEqual(before, SubmarineEngineHubFixture.savingsSat)
        let payeeBefore = try fixture.hub.balanceMsat("payee")
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()

        let paying = Task { try await engine.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await clientEventually("the lock is broadcast") { try await fixture.lastKind(of: id) == "lock_broadcast" }
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        let preimage = try await fixture.provider.payInvoice(of: swap)
        let claim = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)

        let report = try await within(seconds: 30) { try await paying.value }
        XCTAssertEqual(report.preimage, preimage, "the preimage is the proof of payment")
        XCTAssertEqual(SHA256.hash(report.preimage), report.paymentHash)
        XCTAssertEqual(report.preimageSource, "claim")
        XCTAssertEqual(report.lockTotalSat, swap.accept.body.totalSat)
        XCTAssertEqual(report.lockTxid, lock.outPoint.txid)
        XCTAssertGreaterThan(report.lockFeeSat, 0)
        XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(report.lockTxid), "the kernel verified the lock")

        try await fixture.mineUntil(id, is: "completed", atMost: 2)
        XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(claim.txid))
        let after = try await fixture.savings()
        XCTAssertEqual(before - after, report.lockTotalSat + report.lockFeeSat,
                       "savings fell by exactly the lock total and its fee")
        XCTAssertEqual(try fixture.hub.balanceMsat("payee") - payeeBefore, UInt64(amount) * 1_000, "the payee got exactly X")
        XCTAssertEqual(report.lockTotalSat, amount + report.serviceFeeSat + report.providerOnchainFeeSat)
        let kinds = try await fixture.store.events(of: id).map(\.kind)
        XCTAssertEqual(kinds.filter { $0 != "paid" && $0 != "lock_broadcast" },
                       ["quoted", "accepted", "lock_intent", "lock_confirmed", "completed"], "\(kinds)")
        XCTAssertEqual(fixture.payments(to: swap.contract.scriptPubKey).count, 1, "one lock")
        let record = try await XCTUnwrapAsync(try await fixture.store.swap(id))
        let books = try SwapAccountingEntry.submarineClient(record, events: try await fixture.store.events(of: id))
        XCTAssertEqual(books.outcome, .completed)
        XCTAssertEqual(books.purpose, "pay_contact")
        XCTAssertEqual(books.onchainSat, after - before, "the books' on-chain net is the wallet's change")
        await fixture.shutDown(engine)
    }

    /// The provider pays only once the lock is confirmed, and may ask for the co-signature
    /// of its key-path claim before this client's chain follower has polled the block (the
    /// client polls every 2 s; a payment takes less). The client reads the lock's depth
    /// when it answers, so its record says `lock_confirmed` before `coop_signed`, as the
    /// chain had it: the follower here never polls again after its first look.
    func testACooperativeClaimAskedBeforeTheFollowerSawTheBlockRecordsTheLockConfirmedFirst() async throws {
        let fixture = try await SubmarineEngineHubFixture(cooperates: true, followerPollMilliseconds: 600_000)
        let engine = try fixture.engine()
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()
        let paying = Task { try await engine.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await clientEventually("the lock is broadcast") { try await fixture.lastKind(of: id) == "lock_broadcast" }
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        XCTAssertTrue(swap.request.cooperates, "the request lists musig2")
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        try fixture.hub.mine(1)
        let preimage = try await fixture.provider.payInvoice(of: swap)
        let request = try await fixture.provider.coopClaimRequest(swap, lock: lock, preimage: preimage)

        let reply = try SwapMessage(bytes: await engine.answer(providerRequest: request.encoded, from: fixture.provider.identity.pubky))
        guard case .coopClaimSigned(let signed) = reply else { return XCTFail("the claim is co-signed: \(reply)") }
        XCTAssertEqual(signed.swapID, swap.accept.body.swapID)
        let kinds = try await fixture.store.events(of: id).map(\.kind)
        XCTAssertEqual(kinds, ["quoted", "accepted", "lock_intent", "lock_broadcast", "lock_confirmed", "coop_signed"],
                       "the lock's confirmation is recorded before the co-signature")
        let report = try await within(seconds: 30) { try await paying.value }
        XCTAssertEqual(report.preimage, preimage)
        XCTAssertEqual(report.preimageSource, "cooperative_claim")
        await fixture.shutDown(engine)
    }

    /// A swap-in: the node's own invoice. Its settlement gives the preimage before any claim.
    func testASwapInLearnsThePreimageFromItsOwnSettledInvoice() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let before = try await fixture.savings()
        let clientBefore = try fixture.hub.balanceMsat("client")
        let created = try await fixture.clientLND.addInvoice(amountMsat: UInt64(amount) * 1_000, memo: "swap-in",
                                                             expirySeconds: 3_600, cltvExpiry: 0)
        let offer = try await fixture.offer()
        let paying = Task { try await engine.pay(invoice: created.paymentRequest, via: offer, ownInvoice: true) }
        let id = try await waitForSwap(fixture)
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 3)
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        let preimage = try await fixture.provider.payInvoice(of: swap)
        let report = try await within(seconds: 30) { try await paying.value }
        XCTAssertEqual(report.preimage, preimage)
        XCTAssertEqual(report.preimageSource, "settled_invoice", "learned before any claim")
        XCTAssertEqual(try fixture.hub.balanceMsat("client") - clientBefore, UInt64(amount) * 1_000, "spending +X exactly")
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        _ = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)
        try await fixture.mineUntil(id, is: "completed", atMost: 2)
        let after = try await fixture.savings()
        XCTAssertEqual(before - after, report.lockTotalSat + report.lockFeeSat)
        await fixture.shutDown(engine)
    }

    /// A funding the node took that stays unconfirmed while the fee market rises gets a
    /// child from the wallet once it has waited `fundingBumpAfterBlocks`: never a
    /// replacement (the provider may hold its txid), one child, the package at about the
    /// estimate. Once the lock confirms the swap goes on and completes; the books count the
    /// child's fee with the lock's, and savings fall by exactly that.
    func testAStuckFundingGetsAChildPayingForItAndTheBooksCountItsFee() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let before = try await fixture.savings()
        // A final delta the provider could still route under its CLTV limit while the lock waits.
        let invoice = try await fixture.payeeInvoice(amountSat: amount, finalCLTVExpiry: 18)
        let (paying, id, swap, funding) = try await startStuckFunding(fixture, engine: engine, invoice: invoice)

        var children: [MempoolEntryInfo] = []
        for _ in 0..<(SubmarineClientEngine.fundingBumpAfterBlocks + 3) where children.isEmpty {
            try fixture.hub.mine(1)
            let deadline = ContinuousClock.now + .seconds(2)
            while children.isEmpty, ContinuousClock.now < deadline {
                children = fixture.hub.chain.mempoolEntries().filter { info in
                    info.entry.transaction.inputs.contains { $0.previousOutput.txid == funding.entry.txid }
                }
                if children.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        let child = try XCTUnwrap(children.first, "no child spends the stuck funding")
        try fixture.hub.mine(1)
        try await Task.sleep(for: .milliseconds(300))
        let spenders = fixture.hub.chain.mempoolEntries().filter { info in
            info.entry.transaction.inputs.contains { $0.previousOutput.txid == funding.entry.txid }
        }
        XCTAssertEqual(spenders.map(\.entry.txid), [child.entry.txid], "one child, not one per block")
        XCTAssertTrue(fixture.hub.inMempool(funding.entry.txid), "the funding itself was not replaced")
        let packageRate = (funding.entry.fee + child.entry.fee) * 1_000 / Int64(funding.entry.vsize + child.entry.vsize)
        XCTAssertGreaterThanOrEqual(packageRate, 20_000 - 100, "the package pays about the estimate")
        let recorded = try await SubmarineClientEngine.recordedFundingChildFee(id, in: fixture.store)
        XCTAssertEqual(recorded, child.entry.fee)

        XCTAssertTrue(fixture.hub.chain.release(funding.entry.txid))
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        let preimage = try await fixture.provider.payInvoice(of: swap)
        _ = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)
        let report = try await within(seconds: 30) { try await paying.value }
        try await fixture.mineUntil(id, is: "completed", atMost: 2)
        let after = try await fixture.savings()
        XCTAssertEqual(before - after, report.lockTotalSat + report.lockFeeSat + child.entry.fee,
                       "savings fell by the lock total, its fee and the child's")
        let record = try await XCTUnwrapAsync(try await fixture.store.swap(id))
        let books = try SwapAccountingEntry(try await SwapHistory.load(record, from: fixture.store))
        XCTAssertEqual(books.outcome, .completed)
        XCTAssertEqual(books.lockFeeSat, report.lockFeeSat + child.entry.fee)
        XCTAssertEqual(books.onchainSat, after - before, "the books' on-chain net is the wallet's change")
        await fixture.shutDown(engine)
    }

    /// A stuck funding the provider can no longer pay for gets no child: here the invoice
    /// expires within 600 s, so a lock confirming in the next block would find it expired
    /// (the rule the provider gives a swap up by), and without cooperation the lock waits for
    /// the refund at the timeout whenever it confirms. The progress says why, once; the
    /// funding stays as it was.
    func testAStuckFundingTheProviderCanNoLongerPayForGetsNoChild() async throws {
        let (children, notes) = try await stuckFundingPastThePayWindow(cooperates: false)
        XCTAssertEqual(children, 0, "no child for a lock the provider will not pay for")
        XCTAssertEqual(notes.filter { $0.contains(Self.pastPayWindow) }.count, 1, "said once: \(notes)")
    }

    /// The same in a cooperative swap gets its child: a provider that gives up offers the
    /// key-path refund at once, which confirms promptly only behind a confirmed lock.
    func testACooperativeStuckFundingIsLiftedEvenPastThePayWindow() async throws {
        let (children, notes) = try await stuckFundingPastThePayWindow(cooperates: true)
        XCTAssertEqual(children, 1, "one child: the key-path refund needs the lock confirmed")
        XCTAssertFalse(notes.contains { $0.contains(Self.pastPayWindow) }, "\(notes)")
    }

    private static let pastPayWindow = "the provider can no longer pay the invoice"

    /// A swap whose invoice expires within a block's 600 s, its funding held out of blocks
    /// under a raised estimate for `fundingBumpAfterBlocks` + 3 blocks: the children that
    /// spend the funding then, and the progress notes.
    private func stuckFundingPastThePayWindow(cooperates: Bool) async throws -> (children: Int, notes: [String]) {
        let fixture = try await SubmarineEngineHubFixture(cooperates: cooperates)
        let engine = try fixture.engine()
        let invoice = try await fixture.payeeInvoice(amountSat: amount, expirySeconds: 500, finalCLTVExpiry: 18)
        let (paying, id, _, funding) = try await startStuckFunding(fixture, engine: engine, invoice: invoice)
        for _ in 0..<(SubmarineClientEngine.fundingBumpAfterBlocks + 3) {
            try fixture.hub.mine(1)
            try await Task.sleep(for: .milliseconds(300))
        }
        let spendsFunding = { @Sendable (info: MempoolEntryInfo) in
            info.entry.transaction.inputs.contains { $0.previousOutput.txid == funding.entry.txid }
        }
        // Waits for what each case ends with (a slow machine's engine may lag the blocks):
        // the child, or the note that says why there is none.
        if cooperates {
            // The child is broadcast, then its fee recorded: both, or the checks below say which is missing.
            try? await clientEventually(seconds: 5, "a child spends the funding and its fee is recorded") {
                try await SubmarineClientEngine.recordedFundingChildFee(id, in: fixture.store) != nil
                    && fixture.hub.chain.mempoolEntries().contains(where: spendsFunding)
            }
        } else {
            try await clientEventually(seconds: 5, "the progress says why there is no child") {
                fixture.progress.all.contains { $0.detail.contains(Self.pastPayWindow) }
            }
        }
        let children = fixture.hub.chain.mempoolEntries().filter(spendsFunding)
        XCTAssertTrue(fixture.hub.inMempool(funding.entry.txid), "the funding is never replaced")
        let childFee = try await SubmarineClientEngine.recordedFundingChildFee(id, in: fixture.store)
        XCTAssertEqual(childFee, children.first?.entry.fee, "the child's fee recorded, or none")
        paying.cancel()
        await fixture.shutDown(engine)
        return (children.count, fixture.progress.all.map(\.detail))
    }

    /// A pay of `invoice` started and its lock broadcast, then held out of blocks by the hub
    /// under an estimate of 20,000 sat/kvB: where the stuck funding's tests start.
    private func startStuckFunding(_ fixture: SubmarineEngineHubFixture, engine: SubmarineClientEngine, invoice: String)
        async throws -> (paying: Task<SubmarineClientReport, Error>, id: String, swap: SubmarineScriptedProvider.Swap,
                         funding: MempoolEntryInfo) {
        let offer = try await fixture.offer()
        let paying = Task<SubmarineClientReport, Error> { try await engine.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await clientEventually("the lock is broadcast") { try await fixture.lastKind(of: id) == "lock_broadcast" }
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        let script = swap.contract.scriptPubKey
        let funding = try XCTUnwrap(fixture.hub.chain.mempoolEntries().first { info in
            info.entry.transaction.outputs.contains { $0.scriptPubKey == script }
        }, "the funding is in the mempool")
        XCTAssertTrue(fixture.hub.chain.hold(funding.entry.txid))
        fixture.hub.chain.setFeeEstimate(.feeRate(20_000))
        return (paying, id, swap, funding)
    }

    /// The provider never pays: from the timeout the engine refunds (nLockTime = timeout),
    /// the refund confirms and the kernel verified it; savings are whole but for the lock's
    /// and the refund's fees.
    func testAProviderThatNeverPaysIsRefundedAfterTheTimeout() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let before = try await fixture.savings()
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()
        let paying = Task { try await engine.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        let timeout = Int(swap.contract.terms.timeoutHeight)
        try fixture.hub.mine(max(0, timeout - 1 - fixture.hub.height))
        try await Task.sleep(nanoseconds: 500_000_000)
        let beforeTimeout = try await fixture.lastKind(of: id)
        XCTAssertNotEqual(beforeTimeout, "refund_broadcast", "no refund before the timeout")
        try await fixture.mineUntil(id, is: "refund_broadcast", atMost: 2)
        do {
            _ = try await within(seconds: 30) { try await paying.value }
            XCTFail("pay returned without the invoice paid")
        } catch let error as ClientEngineError {
            guard case .submarineEnded(_, let outcome) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(outcome.funds, .refunded)
        }
        try await fixture.mineUntil(id, is: "refunded", atMost: 3)
        let state = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
        let refunded = try SubmarineClientState(kind: state.kind, data: state.data)
        let refund = try XCTUnwrap(refunded.refund)
        XCTAssertEqual(Int(refund.lockTime), timeout, "nLockTime is the timeout")
        let mined = try XCTUnwrap(refunded.refundTxids.first { fixture.hub.confirmations(of: $0) != nil })
        XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(mined), "the kernel verified the refund")
        let lock = try XCTUnwrap(refunded.lock)
        let minedRefund = try XCTUnwrap(fixture.hub.chain.transaction(mined)?.transaction)
        let refundFee = lock.value - minedRefund.outputs.reduce(0) { $0 + $1.value }
        let events = try await fixture.store.events(of: id)
        let lockFee = try XCTUnwrap(events.first { $0.kind == "lock_intent" }?.data["lock_fee_sat"]?.int64Value)
        let after = try await fixture.savings()
        XCTAssertEqual(before - after, lockFee + refundFee, "value conserved: only the two fees left the wallet")
        let record = try await XCTUnwrapAsync(try await fixture.store.swap(id))
        let books = try SwapAccountingEntry.submarineClient(record, events: events)
        XCTAssertEqual(books.outcome, .refunded)
        XCTAssertEqual(books.onchainSat, after - before, "the books' on-chain net is the wallet's change")
        XCTAssertEqual(try fixture.hub.balanceMsat("payee"), 1_000_000, "nothing was paid")
        await fixture.shutDown(engine)
    }

    /// A refund that no block takes is bumped at the next block by RBF (at least 1 sat/vB
    /// more), and the bump is what confirms; it pays the same wallet address.
    func testAnUnminedRefundIsBumpedAtTheNextBlock() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()
        let paying = Task { try await engine.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        try fixture.hub.mine(max(0, Int(swap.contract.terms.timeoutHeight) - 1 - fixture.hub.height))
        try await fixture.mineUntil(id, is: "refund_broadcast", atMost: 2)
        _ = try? await within(seconds: 30) { try await paying.value }
        let first = try await Self.refundState(fixture, id)
        let firstRefund = try XCTUnwrap(first.refund)
        try await clientEventually("the first refund is in the mempool") { fixture.hub.inMempool(firstRefund.txid) }
        XCTAssertTrue(fixture.hub.chain.hold(firstRefund.txid), "no block takes the first version")
        try fixture.hub.mine(1)
        try await clientEventually("a bump replaces it") {
            let state = try await Self.refundState(fixture, id)
            guard let bump = state.refund, bump.txid != firstRefund.txid else { return false }
            return fixture.hub.inMempool(bump.txid)
        }
        let bumped = try await Self.refundState(fixture, id)
        let bump = try XCTUnwrap(bumped.refund)
        XCTAssertEqual(bumped.refundTxids, [firstRefund.txid, bump.txid])
        XCTAssertFalse(fixture.hub.inMempool(firstRefund.txid), "replaced (BIP125)")
        XCTAssertEqual(bump.outputs.map(\.scriptPubKey), firstRefund.outputs.map(\.scriptPubKey), "the same address")
        XCTAssertLessThan(bump.outputs[0].value, firstRefund.outputs[0].value, "the bump pays more fee")
        try await fixture.mineUntil(id, is: "refunded", atMost: 2)
        XCTAssertNotNil(fixture.hub.confirmations(of: bump.txid))
        XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(bump.txid), "the kernel verified the bump")
        await fixture.shutDown(engine)
    }

    private static func refundState(_ fixture: SubmarineEngineHubFixture, _ id: String) async throws -> SubmarineClientState {
        let last = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
        return try SubmarineClientState(kind: last.kind, data: last.data)
    }

    /// An accept with a wrong amount, hash, timeout or contract: the swap ends abandoned and
    /// nothing is locked; the wallet holds what it held.
    func testAWrongAcceptLocksNothing() async throws {
        for fault in SubmarineScriptedProvider.AcceptFault.allCases where fault != .none {
            let fixture = try await SubmarineEngineHubFixture(fault: fault)
            let engine = try fixture.engine()
            let before = try await fixture.savings()
            let invoice = try await fixture.payeeInvoice(amountSat: amount)
            let offer = try await fixture.offer()
            do {
                _ = try await within(seconds: 30) { try await engine.pay(invoice: invoice, via: offer) }
                XCTFail("\(fault): paid")
            } catch let error as ClientEngineError {
                guard case .submarineEnded(let id, let outcome) = error else { XCTFail("\(fault): \(error)"); continue }
                XCTAssertEqual(outcome.funds, .neverLocked, "\(fault)")
                let last = try await fixture.lastKind(of: id)
                XCTAssertEqual(last, "abandoned", "\(fault)")
            }
            let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
            XCTAssertTrue(fixture.payments(to: swap.contract.scriptPubKey).isEmpty, "\(fault): nothing locked")
            XCTAssertTrue(fixture.hub.chain.mempoolEntries().isEmpty, "\(fault): nothing broadcast")
            let after = try await fixture.savings()
            XCTAssertEqual(after, before, "\(fault): the wallet holds what it held")
            let lockable = await fixture.wallet.capacity().lockableSat
            XCTAssertEqual(lockable, before, "\(fault): no coin stays reserved")
            // Nothing was locked for the invoice, so it may be tried again (it ends the same way).
            do {
                _ = try await within(seconds: 30) { try await engine.pay(invoice: invoice, via: offer) }
                XCTFail("\(fault): paid on the second try")
            } catch let error as ClientEngineError {
                guard case .submarineEnded(_, let outcome) = error else { XCTFail("\(fault), second try: \(error)"); continue }
                XCTAssertEqual(outcome.funds, .neverLocked, "\(fault), second try")
            }
            await fixture.shutDown(engine)
        }
    }

    /// The same invoice twice (a contact that hands out one invoice again, or a retry): once a
    /// swap has locked for a payment hash, its preimage is known to the provider that paid it
    /// and to every node on the route, and a second lock on that hash could be claimed
    /// without paying. While the first swap runs, and after it completed, the second `pay`
    /// is refused before anything is recorded or locked.
    func testAnInvoiceAlreadyLockedForIsRefusedBeforeAnythingIsLocked() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()

        let paying = Task { try await engine.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await clientEventually("the lock is broadcast") { try await fixture.lastKind(of: id) == "lock_broadcast" }
        func assertRefused(_ when: String) async throws {
            let swaps = try await fixture.store.allSwaps(limit: 100).count
            let mempool = fixture.hub.chain.mempoolEntries().count
            do {
                _ = try await within(seconds: 30) { try await engine.pay(invoice: invoice, via: offer) }
                XCTFail("\(when): the same invoice was paid again")
            } catch let error as ClientEngineError {
                XCTAssertEqual(error, .invoiceAlreadyUsed(swapID: id), when)
                XCTAssertEqual(error.fate, .neverSent, when)
            }
            let swapsAfter = try await fixture.store.allSwaps(limit: 100).count
            XCTAssertEqual(swapsAfter, swaps, "\(when): nothing recorded")
            XCTAssertEqual(fixture.hub.chain.mempoolEntries().count, mempool, "\(when): nothing broadcast")
        }
        try await assertRefused("while the first swap runs")

        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        let preimage = try await fixture.provider.payInvoice(of: swap)
        _ = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)
        _ = try await within(seconds: 30) { try await paying.value }
        try await fixture.mineUntil(id, is: "completed", atMost: 2)
        try await assertRefused("after it completed")
        XCTAssertEqual(fixture.payments(to: swap.contract.scriptPubKey).count, 1, "one lock")

        // A restarted engine, and an index rebuilt from the records, refuse it too.
        try await fixture.store.removeValue(forKey: SubmarineInvoiceIndex.index.builtKey)
        try await fixture.store.removeValue(forKey: SubmarineInvoiceIndex.index.key(SHA256.hash(preimage)))
        await fixture.shutDown(engine)
        let restarted = try fixture.engine()
        do {
            _ = try await within(seconds: 30) { try await restarted.pay(invoice: invoice, via: offer) }
            XCTFail("the same invoice was paid again after a restart")
        } catch let error as ClientEngineError {
            XCTAssertEqual(error, .invoiceAlreadyUsed(swapID: id))
        }
        await fixture.shutDown(restarted)
    }

    /// The node dies right after recording `lock_intent`, before the broadcast. On restart
    /// the recorded funding goes out, the very same bytes, and the swap completes: one lock.
    func testACrashAfterLockIntentBroadcastsTheRecordedFundingOnRestart() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let (id, stored, before) = try await crashAfterLockIntent(fixture)
        let funding = try XCTUnwrap(stored.funding)

        // A restarted node: a fresh wallet from the same seed, the same store.
        let wallet = try fixture.hub.wallet(seed: 0x55)
        _ = try await wallet.sync()
        let second = try fixture.engine(wallet: wallet)
        let resumed = try await second.recover()
        XCTAssertEqual(resumed, [id])
        try await clientEventually("the same funding is out") { fixture.hub.inMempool(funding.txid) }
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        XCTAssertEqual(fixture.payments(to: swap.contract.scriptPubKey).map(\.txid), [funding.txid], "never a second lock")
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        let preimage = try await fixture.provider.payInvoice(of: swap)
        _ = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)
        try await fixture.mineUntil(id, is: "completed", atMost: 3)
        let completed = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
        XCTAssertEqual(try SubmarineClientState(kind: completed.kind, data: completed.data).preimage, preimage,
                       "the claim's witness gave the preimage")
        let events = try await fixture.store.events(of: id)
        let lockFee = try XCTUnwrap(events.first { $0.kind == "lock_intent" }?.data["lock_fee_sat"]?.int64Value)
        _ = try await wallet.sync()
        let after = await wallet.balance().total
        XCTAssertEqual(before - after, lock.value + lockFee, "value conserved")
        await fixture.shutDown(second)
    }

    /// SUB-LIQ-2: the node dies after recording `lock_intent`, before the broadcast, and
    /// stays down past the blocks the provider waits for a lock. On restart the funding is
    /// not sent (the provider no longer pays for it: the coins would wait for the refund at
    /// the timeout); its inputs go back to the wallet, and once that is final the swap ends
    /// `abandoned`, nothing locked, the wallet short only the withdrawal's fee, which the
    /// report counts.
    func testAFundingNeverSentIsTakenBackWhenTheNodeRestartsTooLateForTheProvider() async throws {
        try await takeBackAfterALateRestart(inMempool: false)
    }

    /// As above, with the funding in the node's mempool at the restart (the crash came
    /// after the broadcast, before its record, and no block took it): it is replaced
    /// (BIP125) by the withdrawal, which pays more than it.
    func testAFundingInTheMempoolIsReplacedWhenTheNodeRestartsTooLateForTheProvider() async throws {
        try await takeBackAfterALateRestart(inMempool: true)
    }

    private func takeBackAfterALateRestart(inMempool: Bool) async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let (id, stored, before) = try await crashAfterLockIntent(fixture)
        let funding = try XCTUnwrap(stored.funding)
        let contract = try XCTUnwrap(stored.contract)

        // Down until the provider no longer waits for a lock.
        let record = try SubmarineClientRecord(json: try await XCTUnwrapAsync(try await fixture.store.swap(id)).contract)
        let last = SubmarineRules.lastLockBroadcastHeight(timeoutHeight: contract.terms.timeoutHeight,
                                                          htlcTimeoutBlocks: record.quote.body.htlcTimeoutBlocks)
        try fixture.hub.mine(last + 1 - fixture.hub.chain.height)
        if inMempool { _ = try fixture.hub.chain.submit(funding) }
        let wallet = try fixture.hub.wallet(seed: 0x55)
        _ = try await wallet.sync()
        let second = try fixture.engine(wallet: wallet)
        let resumed = try await second.recover()
        XCTAssertEqual(resumed, [id])
        let inputs = Set(funding.inputs.map(\.previousOutput))
        try await clientEventually("the funding's inputs are spent back to the wallet") {
            fixture.hub.chain.mempoolEntries().contains { entry in
                guard let tx = fixture.hub.chain.transaction(entry.entry.txid)?.transaction else { return false }
                return tx.txid != funding.txid && tx.inputs.contains { inputs.contains($0.previousOutput) }
            }
        }
        XCTAssertFalse(fixture.hub.inMempool(funding.txid), "the lock was not sent")
        // The daemon syncs its wallet on a timer (`wallet_sync_seconds`): here at each block.
        for _ in 0..<6 where try await fixture.lastKind(of: id) != "abandoned" {
            try fixture.hub.mine(1)
            _ = try await wallet.sync()
            for _ in 0..<40 where try await fixture.lastKind(of: id) != "abandoned" {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }
        let kind = try await fixture.lastKind(of: id)
        XCTAssertEqual(kind, "abandoned", "once the withdrawal is final")
        let notes = fixture.progress.all.map(\.detail)
        XCTAssertEqual(notes.filter { $0.contains("its inputs go back to the wallet") }.count, 1, "said once: \(notes)")
        XCTAssertFalse(notes.contains { $0.contains("cannot take lock") }, "a withdrawal in a block is not tried again: \(notes)")
        XCTAssertTrue(fixture.payments(to: contract.scriptPubKey).isEmpty, "no lock ever")
        let end = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
        XCTAssertEqual(try SubmarineClientState(kind: end.kind, data: end.data).outcome?.funds, .neverLocked)
        let fee = try await XCTUnwrapAsync(try await SubmarineClientEngine.recordedFundingWithdrawalFee(id, in: fixture.store))
        XCTAssertGreaterThan(fee, 0)
        if inMempool {
            let events = try await fixture.store.events(of: id)
            let lockFee = try XCTUnwrap(events.first { $0.kind == "lock_intent" }?.data["lock_fee_sat"]?.int64Value)
            XCTAssertGreaterThan(fee, lockFee, "a replacement pays more than the funding it replaces")
        }
        _ = try await wallet.sync()
        let after = await wallet.balance().total
        XCTAssertEqual(before - after, fee, "the wallet is short the withdrawal's fee only")
        let swap = try await XCTUnwrapAsync(try await fixture.store.swap(id))
        let entry = try SwapAccountingEntry(try await SwapHistory.load(swap, from: fixture.store))
        XCTAssertEqual(entry.onchainSat, -fee, "the report counts what the wallet lost")
        await fixture.shutDown(second)
    }

    /// The node is down while the provider pays and its claim is mined: on restart the
    /// rescan finds the claim, its witness gives the preimage, and the swap completes.
    func testAClaimMinedWhileTheNodeWasDownIsFoundOnRestart() async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let first = try fixture.engine()
        let before = try await fixture.savings()
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()
        let paying = Task { try await first.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await fixture.mineUntil(id, is: "lock_confirmed", atMost: 2)
        await first.shutDown()
        paying.cancel()

        let swap = try await XCTUnwrapAsync(await fixture.provider.onlySwap)
        let lock = try await XCTUnwrapAsync(await fixture.provider.lock(of: swap))
        let preimage = try await fixture.provider.payInvoice(of: swap)
        let claim = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)
        try fixture.hub.mine(2)
        XCTAssertEqual(fixture.hub.confirmations(of: claim.txid), 2)

        let second = try fixture.engine()
        let resumed = try await second.recover()
        XCTAssertEqual(resumed, [id])
        try await clientEventually("the swap completes from the claim found by the rescan") {
            try await fixture.lastKind(of: id) == "completed"
        }
        let last = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
        let state = try SubmarineClientState(kind: last.kind, data: last.data)
        XCTAssertEqual(state.preimage, preimage)
        XCTAssertEqual(state.preimageSource, .claim)
        XCTAssertEqual(state.claimTxid, claim.txid)
        XCTAssertTrue(state.refundTxids.isEmpty, "no refund")
        let events = try await fixture.store.events(of: id)
        let lockFee = try XCTUnwrap(events.first { $0.kind == "lock_intent" }?.data["lock_fee_sat"]?.int64Value)
        let after = try await fixture.savings()
        XCTAssertEqual(before - after, lock.value + lockFee, "value conserved")
        await fixture.shutDown(second)
    }

    /// A pay whose node dies right after recording `lock_intent`, before the broadcast:
    /// the swap's id, its recorded state and the savings before the pay.
    private func crashAfterLockIntent(_ fixture: SubmarineEngineHubFixture) async throws
        -> (id: String, stored: SubmarineClientState, savingsBefore: Int64) {
        let crashing = ClientCrashingStore(fixture.store, crashAfter: "lock_intent")
        let first = try fixture.engine(store: crashing)
        let before = try await fixture.savings()
        let invoice = try await fixture.payeeInvoice(amountSat: amount)
        let offer = try await fixture.offer()
        let paying = Task { try await first.pay(invoice: invoice, via: offer) }
        let id = try await waitForSwap(fixture)
        try await clientEventually("lock_intent is on disk") { try await fixture.lastKind(of: id) == "lock_intent" }
        _ = try? await within(seconds: 10) { try await paying.value }
        let recorded = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
        let stored = try SubmarineClientState(kind: recorded.kind, data: recorded.data)
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertTrue(fixture.hub.chain.mempoolEntries().isEmpty, "nothing was broadcast before the crash")
        await first.shutDown()
        return (id, stored, before)
    }

    private func waitForSwap(_ fixture: SubmarineEngineHubFixture) async throws -> String {
        try await clientEventually("the swap is recorded") { try await !fixture.store.allSwaps(limit: 1).isEmpty }
        return try await XCTUnwrapAsync(try await fixture.store.allSwaps(limit: 1).first).id
    }
}
