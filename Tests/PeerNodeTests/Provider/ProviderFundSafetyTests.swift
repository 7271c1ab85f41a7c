import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Synchronization
import Transport
import XCTest

/// The fund-safety audit's findings against the provider engine, on the hub: each test is
/// the attack (or the accident) and asserts the provider keeps what is its own and takes
/// nothing that is not.
final class ProviderFundSafetyTests: ProviderHarnessTestCase {
    /// C-1: a client asking for the retired `p2wsh` layout (no preimage size check) is
    /// refused with a reason that names what to ask for, and nothing is set up.
    func testARequestForTheRetiredP2WSHLayoutIsRefusedWithAReason() async throws {
        let quote = try await harness.quote(amount: 100_000)
        let request = harness.swapRequest(for: quote, secrets: try harness.secrets(0), scriptType: .p2wshUnsized)
        let reply = try await harness.send(request)
        guard case .reject(let reject) = reply else { return XCTFail("expected a refusal, got \(reply)") }
        XCTAssertEqual(reject.code, .invalidRequest)
        XCTAssertTrue(reject.reason.contains("p2wsh_v2"), reject.reason)
        let running = await harness.engine.activeSwapIDs
        XCTAssertEqual(running, [])
        let exposure = await harness.engine.risk.exposureSat
        XCTAssertEqual(exposure, 0)
    }

    /// A swap mined to its timeout: the provider's refund is in the mempool.
    private func swapWithRefundOut() async throws
        -> (accept: SwapAccept, secrets: SwapSecrets, payment: Task<PaymentUpdate.Status?, any Error>,
            lock: ProviderLock, refund: ProviderRefund) {
        let (accept, secrets, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height)
        try await harness.waitForState(.refundBroadcast, of: id)
        let last = try await harness.store.lastEvent(of: id)
        guard case .refundBroadcast(_, let refund) = try ProviderSwapState(event: XCTUnwrap(last)) else {
            throw ProviderTestFailure("expected a refund in flight")
        }
        XCTAssertTrue(harness.hub.inMempool(refund.txid))
        return (accept, secrets, payment, lock, refund)
    }

    /// The client's claim at 100 sat/vB: it pays more than any refund so far, so it
    /// replaces one in the mempool (both signal RBF).
    private func broadcastReplacingClaim(_ accept: SwapAccept, lock: ProviderLock, secrets: SwapSecrets) async throws {
        let claim = try ClaimBuilder().build(
            ClaimRequest(contract: try harness.contract(of: accept), lock: lock.output, destination: HubFixture.elsewhere,
                         amount: lock.output.value - 20_000, purpose: .swapOut, feeRate: try FeeRate(satPerKvB: 100_000),
                         blocksLeft: 100),
            claimKey: secrets.claimKey, preimage: secrets.preimage)
        _ = try await harness.hub.backend.broadcast(claim.transaction)
    }

    /// H-2: once its refund is out, the provider never settles on a pushed preimage (the
    /// refund may still confirm: it would keep both the coins and the payment). The refund
    /// confirms, the invoice is cancelled, the client's payment returns.
    func testAPushWhileTheRefundIsInFlightNeverSettles() async throws {
        let payerBefore = try harness.hub.balanceMsat("payer")
        let (accept, secrets, payment, _, refund) = try await swapWithRefundOut()
        let id = accept.swapID
        await harness.engine.receive(push: PreimagePush(swapID: id, preimage: secrets.preimage).encoded,
                                     from: harness.client.pubky)
        try await harness.mine(ProviderSwapMachine.refundCancelDepth)
        try await harness.waitForState(.refunded, of: id)
        XCTAssertNotNil(harness.hub.confirmations(of: refund.txid))
        let kinds = try await harness.kinds(id)
        XCTAssertFalse(kinds.contains("settled"), "\(kinds)")
        let status = try await payment.value
        guard case .failed? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("payer"), payerBefore, "the client's payment came back")
    }

    /// H-2: a claim that replaces the refund in the mempool stops the refund (no bump) and
    /// is settled for only once it confirms.
    func testAClaimSeenWhileTheRefundIsInFlightIsSettledOnlyOnceItConfirms() async throws {
        let providerBefore = try harness.hub.balanceMsat("provider")
        let (accept, secrets, payment, lock, refund) = try await swapWithRefundOut()
        let id = accept.swapID
        try await broadcastReplacingClaim(accept, lock: lock, secrets: secrets)
        XCTAssertFalse(harness.hub.inMempool(refund.txid), "the claim replaced the refund")
        try await harness.waitForState(.claimPending, of: id)
        let invoice = try await harness.providerLND.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(invoice.state, .accepted, "not settled while the claim is unconfirmed")
        try await harness.mine(1)
        try await harness.waitForState(.settled, of: id)
        let status = try await payment.value
        guard case .succeeded? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("provider") - providerBefore, UInt64(accept.totalSat) * 1_000)
    }

    /// M-2: the invoice is cancelled only once the refund is deep. A one-block reorg of the
    /// refund's block lets the client claim instead: the provider sees the claim and is
    /// paid, rather than having given the payment back already.
    func testARefundReorgedOutBeforeItIsDeepLeavesTheInvoiceToSettle() async throws {
        let providerBefore = try harness.hub.balanceMsat("provider")
        let (accept, secrets, payment, lock, refund) = try await swapWithRefundOut()
        let id = accept.swapID
        try await harness.mine(1)
        XCTAssertEqual(harness.hub.confirmations(of: refund.txid), 1)
        try await harness.waitFor("the refund's confirmation handled") {
            try await harness.providerLND.lookupInvoice(paymentHash: secrets.paymentHash).state == .accepted
        }
        let lastKind = try await harness.lastKind(id)
        XCTAssertNotEqual(lastKind, "refunded", "not cancelled at one confirmation")

        try harness.hub.chain.invalidateBlock(harness.hub.chain.tipHash)
        try await broadcastReplacingClaim(accept, lock: lock, secrets: secrets)
        try await harness.mine(1)
        try await harness.waitForState(.settled, of: id)
        let status = try await payment.value
        guard case .succeeded? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("provider") - providerBefore, UInt64(accept.totalSat) * 1_000)
    }

    /// M-4: `recover()` again while swaps run (as `swap refund` and `recover --contract` do)
    /// keeps their exposure in the risk ledger.
    func testRecoverWhileSwapsRunKeepsTheirExposure() async throws {
        let (first, _, p1) = try await harness.startSwap(amount: 100_000, index: 0)
        let (second, _, p2) = try await harness.startSwap(amount: 200_000, index: 1)
        defer { p1.cancel(); p2.cancel() }
        try await harness.waitForState(.lockBroadcast, of: first.swapID)
        try await harness.waitForState(.lockBroadcast, of: second.swapID)
        let before = await harness.engine.risk.exposureSat
        XCTAssertEqual(before, 300_000)
        try await harness.engine.recover()
        let after = await harness.engine.risk.exposureSat
        XCTAssertEqual(after, 300_000)
    }

    /// M-6: every attempt at the refund (a fee spike at 500 sat/vB, and miners that leave
    /// each version out of their blocks) pays the one address recorded for the swap; the
    /// wallet's receive index does not walk past its gap limit, and a restarted wallet sees
    /// the refund. (Before, each failed build took a fresh address.)
    func testEveryRefundAttemptPaysTheOneAddressRecordedForTheSwap() async throws {
        // The smallest lock quoted (its refund at the 100 sat/vB cap plus dust); a 500 sat/vB
        // refund would eat it several times over.
        let (accept, _, payment) = try await harness.startSwap(amount: ProviderTerms(network: .regtest).effectiveMinAmountSat)
        defer { payment.cancel() }
        let id = accept.swapID
        try await harness.waitForState(.lockBroadcast, of: id)
        let recordedLock = try await harness.recordedLock(id)
        let lock = try XCTUnwrap(recordedLock)
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)
        let before = await harness.wallet.keys.peekNextAddress(.receive).path.index
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height - 1)
        harness.hub.chain.setFeeEstimate(.feeRate(500_000))
        var held: Set<TransactionID> = []
        func holdNewVersions() -> Bool {
            var found = false
            for info in harness.hub.chain.mempoolEntries()
            where info.entry.transaction.inputs.contains(where: { $0.previousOutput == lock.outPoint })
                && !held.contains(info.entry.txid) {
                if harness.hub.chain.hold(info.entry.txid) { held.insert(info.entry.txid); found = true }
            }
            return found
        }
        for _ in 0..<(WalletKeys.defaultGapLimit + 5) {
            try await harness.mine(1)
            // Each block's attempt is out (or there was no room to outbid the last) before the next.
            let deadline = ContinuousClock.now + .seconds(2)
            while !holdNewVersions(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        }
        let during = await harness.wallet.keys.peekNextAddress(.receive).path.index
        XCTAssertLessThanOrEqual(during, before + 1, "one address for every attempt")
        let versions = try await harness.store.events(of: id).compactMap { event -> ProviderRefund? in
            guard case .refundIntent(_, let refund)? = try? ProviderSwapState(event: event) else { return nil }
            return refund
        }
        let kinds = try await harness.kinds(id)
        XCTAssertGreaterThan(versions.count, 1, "\(kinds)")
        XCTAssertEqual(Set(versions.map(\.destination)).count, 1, "\(versions.count) versions, one address")

        harness.hub.chain.setFeeEstimate(.feeRate(2_000))
        for txid in held { _ = harness.hub.chain.release(txid) }
        try await harness.mine(ProviderSwapMachine.refundCancelDepth + 1)
        try await harness.waitForState(.refunded, of: id)
        let allVersions = try await harness.store.events(of: id).compactMap { event -> ProviderRefund? in
            guard case .refundIntent(_, let refund)? = try? ProviderSwapState(event: event) else { return nil }
            return refund
        }
        XCTAssertEqual(Set(allVersions.map(\.destination)).count, 1)
        let spender = allVersions.first { harness.hub.confirmations(of: $0.txid) != nil }
        let refund = try XCTUnwrap(spender, "one recorded version confirmed")
        try await harness.restart()
        try await harness.wallet.sync()
        let seen = await harness.wallet.transaction(refund.txid)
        XCTAssertNotNil(seen, "the restarted wallet sees the refund")
    }

    /// H-4: after the timeout, miners take only transactions paying 300 sat/vB or more
    /// (every cheaper spend of the lock is held out of blocks), while the fee estimate lags
    /// at 2 sat/vB. The refund must outgrow the spike and be deep before LND gives the
    /// payment back at E − 12; a bump of 1 sat/vB a block would still be far below it.
    func testARefundOutgrowsASpikeItsEstimateLagsAndIsDeepBeforeTheHTLCIsCancelled() async throws {
        let payerBefore = try harness.hub.balanceMsat("payer")
        let (accept, _, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)
        let recorded = try await harness.recordedLock(id)
        let expiry = try XCTUnwrap(recorded?.htlcExpiry, "the lock records the HTLC's expiry")
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height - 1)
        let spike: Int64 = 300_000
        var refundedAt: Int?
        for _ in 0..<Int(expiry - accept.timeoutHeight) {
            for info in harness.hub.chain.mempoolEntries()
            where info.entry.transaction.inputs.contains(where: { $0.previousOutput == lock.outPoint })
                && info.entry.fee * 1_000 / Int64(info.entry.vsize) < spike {
                _ = harness.hub.chain.hold(info.entry.txid)
            }
            let eventsBefore = try await harness.kinds(id).count
            try await harness.mine(1)
            // The engine handles each block before the next is mined (a new refund version
            // while the last is held out, or the cancel once the refund is deep).
            let deadline = ContinuousClock.now + .seconds(3)
            while ContinuousClock.now < deadline, try await harness.kinds(id).count == eventsBefore {
                let depth = try await refundDepth(of: id)
                if (1..<ProviderSwapMachine.refundCancelDepth).contains(depth) { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            if try await harness.lastKind(id) == "refunded" { refundedAt = harness.hub.height; break }
        }
        let events = try await harness.kinds(id)
        let height = try XCTUnwrap(refundedAt, "the swap never ended refunded; events \(events)")
        XCTAssertLessThan(height, Int(expiry) - Int(RefundEscalation.holdExpiryDelta), "refunded before LND's cancel")
        let status = try await payment.value
        guard case .failed? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("payer"), payerBefore, "the client's payment came back")
        XCTAssertNil(harness.hub.chain.unspentOutput(lock.outPoint, includeMempool: true), "the lock is spent (by the refund)")
    }

    /// Confirmations of whichever recorded refund version is in a block (0: none).
    private func refundDepth(of id: String) async throws -> Int {
        let versions = try await harness.store.events(of: id).compactMap { event -> ProviderRefund? in
            guard case .refundIntent(_, let refund)? = try? ProviderSwapState(event: event) else { return nil }
            return refund
        }
        return versions.compactMap { harness.hub.confirmations(of: $0.txid) }.max() ?? 0
    }

    /// H-4/M-7: the Lightning node cancels the client's HTLC while the lock is open (at
    /// E − 12, or by its operator). The provider sees it within 6 blocks, records it in
    /// the lock (`swap show` shows it) with an alarm, refunds the lock after the timeout and
    /// ends `refunded_after_htlc_cancel`, its risk slot released. (Before, nobody looked at
    /// the invoice once the lock was out.)
    func testAnHTLCCancelledWhileTheLockIsOpenIsRecordedAndTheLockStillComesBack() async throws {
        let payerBefore = try harness.hub.balanceMsat("payer")
        let (accept, secrets, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID
        try harness.hub.lightning.cancelInvoice(node: "provider", paymentHash: secrets.paymentHash)
        let status = try await payment.value
        guard case .failed? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("payer"), payerBefore, "the client's payment came back")
        // Looked up every `htlcCheckInterval` blocks while the lock is open.
        try await harness.mine(Int(ProviderEngine.htlcCheckInterval))
        try await harness.waitFor("the cancel recorded in the lock") {
            try await harness.recordedLock(id)?.htlcCancelledHeight != nil
        }
        let running = await harness.engine.state(of: id)
        XCTAssertEqual(running?.kind, .lockConfirmed, "the swap goes on: its lock is on chain")
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height)
        try await harness.waitForState(.refundBroadcast, of: id)
        try await harness.mine(ProviderSwapMachine.refundCancelDepth)
        try await harness.waitForState(.refundedAfterHTLCCancel, of: id)
        XCTAssertNil(harness.hub.chain.unspentOutput(lock.outPoint, includeMempool: true), "the lock came back by the refund")
        // Released once the final state's actions ran (just after it is stored).
        try await harness.waitFor("the risk slot released", pollingChain: false) { await harness.engine.risk.exposureSat == 0 }
        let kinds = try await harness.kinds(id)
        XCTAssertFalse(kinds.contains("settled"), "\(kinds)")
    }

    /// M-5: with `provider_contacts_only`, a stranger gets `not_found` for offers, quotes
    /// and swap requests (it cannot even hold an unpaid accept); a contact is served.
    func testAContactsOnlyProviderServesItsContactsOnly() async throws {
        let contact = harness.client.pubky
        let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x99, count: 32))).pubky
        let serves: NodePeerHandlers.ServesPeer = { $0 == contact }
        let engines = SwapEnginesBox()
        func ask(_ request: some SwapMessageBody, from peer: Pubky) async throws -> SwapMessage {
            let reply = await NodePeerHandlers.answer(request.encoded, from: peer, wallet: harness.wallet, network: .regtest,
                                                      desk: harness.desk, engines: engines, servesPeer: serves)
            return try SwapMessage(bytes: reply)
        }
        let offerRequest = OfferRequest(requestID: "o", network: "regtest")
        guard case .reject(let refused) = try await ask(offerRequest, from: stranger) else {
            return XCTFail("a stranger got an offer")
        }
        XCTAssertEqual(refused.code, .notFound)
        XCTAssertTrue(refused.reason.contains("contacts only"), refused.reason)
        guard case .offer = try await ask(offerRequest, from: contact) else { return XCTFail("the contact got no offer") }
        let quote = try await harness.quote(amount: 50_000)
        let request = harness.swapRequest(for: quote, secrets: try harness.secrets(3))
        guard case .reject(let swapRefused) = try await ask(request, from: stranger) else {
            return XCTFail("a stranger's swap request was served")
        }
        XCTAssertEqual(swapRefused.code, .notFound)
        let exposure = await harness.engine.risk.unpaidCount
        XCTAssertEqual(exposure, 0)
    }

    /// M-7: Core's "missing inputs" (-25) is no proof that a lock can never confirm (its
    /// parent may have left the mempool and come back); only a deep confirmed spend of one
    /// of its inputs by another transaction is. Before, any -25 gave the payment back while
    /// the lock could still confirm.
    func testMissingInputsIsNoProofThatALockCanNeverConfirm() async throws {
        let (accept, _, payment) = try await harness.startSwap()
        defer { payment.cancel() }
        try await harness.waitForState(.lockBroadcast, of: accept.swapID)
        let swaps = await harness.engine.swaps
        let swap = try XCTUnwrap(swaps[accept.swapID])
        // A "lock" whose input comes from a parent nobody has: -25, not permanent.
        let orphan = Transaction(version: 2,
                                 inputs: [TransactionInput(previousOutput: OutPoint(txid: try TransactionID(bytes: [UInt8](repeating: 7, count: 32)), index: 0),
                                                           sequence: TransactionInput.replaceableSequence)],
                                 outputs: [TransactionOutput(value: 50_000, scriptPubKey: HubFixture.elsewhere.script)], lockTime: 0)
        let orphanResult = await harness.engine.publishLock(ProviderLock(transaction: orphan, outputIndex: 0, fee: 100, height: 1),
                                                            swap: swap)
        XCTAssertEqual(orphanResult, .lockPublishFailed(permanent: false))

        // A "lock" spending a wallet coin that another transaction spent, 6 blocks deep: permanent.
        try await harness.wallet.sync()
        let sent = try await harness.wallet.send(to: HubFixture.elsewhere, amount: 30_000, feeRate: try FeeRate(satPerKvB: 2_000))
        let spentCoin = try XCTUnwrap(sent.transaction.inputs.first).previousOutput
        let conflicting = Transaction(version: 2, inputs: [TransactionInput(previousOutput: spentCoin,
                                                                            sequence: TransactionInput.replaceableSequence)],
                                      outputs: [TransactionOutput(value: 10_000, scriptPubKey: HubFixture.elsewhere.script)],
                                      lockTime: 0)
        let conflict = ProviderLock(transaction: conflicting, outputIndex: 0, fee: 100, height: 1)
        try await harness.mine(1)
        try await harness.wallet.sync()
        let shallow = await harness.engine.publishLock(conflict, swap: swap)
        XCTAssertEqual(shallow, .lockPublishFailed(permanent: false), "one confirmation could still be reorged away")
        try await harness.mine(ProviderSwapMachine.refundCancelDepth - 1)
        try await harness.wallet.sync()
        let deep = await harness.engine.publishLock(conflict, swap: swap)
        XCTAssertEqual(deep, .lockPublishFailed(permanent: true))
    }

    /// H-4: a lock left out of blocks while the fee estimate rose gets a child from the
    /// provider's wallet (CPFP) that lifts the package to the estimate; never an RBF of the
    /// lock itself (its txid is what the client verified).
    func testAStuckLockGetsAChildPayingForIt() async throws {
        try await harness.wallet.sync()
        let walletBefore = await harness.wallet.balance().total
        let (accept, _, payment) = try await harness.startSwap()
        defer { payment.cancel() }
        let id = accept.swapID
        try await harness.waitForState(.lockBroadcast, of: id)
        let recorded = try await harness.recordedLock(id)
        let lock = try XCTUnwrap(recorded)
        XCTAssertTrue(harness.hub.chain.hold(lock.txid))
        harness.hub.chain.setFeeEstimate(.feeRate(20_000))
        var child: MempoolEntryInfo?
        for _ in 0..<(ProviderEngine.lockBumpAfterBlocks + 3) where child == nil {
            try await harness.mine(1)
            try await harness.waitFor("the block handled", pollingChain: false) { true }
            let deadline = ContinuousClock.now + .seconds(2)
            while child == nil, ContinuousClock.now < deadline {
                child = harness.hub.chain.mempoolEntries().first { info in
                    info.entry.transaction.inputs.contains { $0.previousOutput.txid == lock.txid }
                }
                if child == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        let found = try XCTUnwrap(child, "no child spends the stuck lock")
        XCTAssertTrue(harness.hub.inMempool(lock.txid), "the lock itself was not replaced")
        let packageRate = (lock.fee + found.entry.fee) * 1_000 / Int64(lock.transaction.virtualSize + found.entry.vsize)
        XCTAssertGreaterThanOrEqual(packageRate, 20_000 - 100, "the package pays about the estimate")
        XCTAssertTrue(harness.hub.chain.release(lock.txid))
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)

        // Unclaimed, refunded: the books count the child's fee with the lock's, and the
        // net is what the wallet lost (lock fee + child fee + refund fee).
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height)
        try await harness.waitForState(.refundBroadcast, of: id)
        try await harness.mine(ProviderSwapMachine.refundCancelDepth)
        try await harness.waitForState(.refunded, of: id)
        try await harness.wallet.sync()
        let walletChange = await harness.wallet.balance().total - walletBefore
        let record = try await XCTUnwrapAsync(try await harness.store.swap(id))
        let books = try SwapAccounting(swaps: [try await SwapHistory.load(record, from: harness.store)])
        let entry = try XCTUnwrap(books.entries.first)
        XCTAssertEqual(entry.outcome, .refunded)
        XCTAssertEqual(entry.lockFeeSat, lock.fee + found.entry.fee, "the lock's fee and its child's")
        XCTAssertEqual(entry.onchainSat, walletChange, "the report's on-chain change is the wallet's")
        XCTAssertEqual(books.netMsat, walletChange * 1_000)
    }

    /// H-4: a lock miners leave out of blocks until the client's claim cutoff (timeout −
    /// tip ≤ 6, when an honest client no longer claims) is replaced by a spend of its inputs
    /// back to the wallet; once that is 6 deep the lock can never confirm, the invoice is
    /// cancelled and the payment returns. (Before, the provider kept sending the lock, which
    /// could confirm later for a client claiming it unpaid.)
    func testALockStillUnconfirmedAtTheClientsCutoffIsTakenBack() async throws {
        let payerBefore = try harness.hub.balanceMsat("payer")
        try await harness.wallet.sync()
        let walletBefore = await harness.wallet.balance().total
        let (accept, _, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID
        XCTAssertTrue(harness.hub.chain.hold(lock.txid))
        try await harness.mine(Int(accept.timeoutHeight) - TimelockPolicy.firstClaimCutoff - 1 - harness.hub.height)
        try await harness.waitFor("the block handled", pollingChain: false) { true }
        XCTAssertTrue(harness.hub.inMempool(lock.txid), "sent while the client may still claim")
        try await harness.mine(1)
        try await harness.waitFor("the lock replaced by a spend of its inputs") { !harness.hub.inMempool(lock.txid) }
        let withdrawal = try XCTUnwrap(harness.hub.chain.mempoolEntries().first { info in
            info.entry.transaction.inputs.map(\.previousOutput) == lock.transaction.inputs.map(\.previousOutput)
        }, "a transaction spends the lock's inputs")
        XCTAssertTrue(withdrawal.entry.transaction.outputs.count == 1, "everything back to the wallet")
        try await harness.mine(ProviderSwapMachine.refundCancelDepth)
        // The daemon's wallet follows the chain on its own (wallet_sync_seconds); here by hand.
        try await harness.wallet.sync()
        try await harness.mine(1)
        try await harness.waitForState(.cancelled, of: id)
        XCTAssertNil(harness.hub.confirmations(of: lock.txid), "the lock never confirmed")
        let status = try await payment.value
        guard case .failed? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("payer"), payerBefore, "the client's payment came back")
        // The books: the lock cost nothing (it never confirmed), its withdrawal cost its
        // fee, and that is all the wallet lost.
        try await harness.wallet.sync()
        let walletChange = await harness.wallet.balance().total - walletBefore
        let withdrawalFee = withdrawal.entry.fee
        XCTAssertGreaterThan(withdrawalFee, 0)
        XCTAssertEqual(walletChange, -withdrawalFee, "the wallet lost the withdrawal's fee")
        let record = try await XCTUnwrapAsync(try await harness.store.swap(id))
        let books = try SwapAccounting(swaps: [try await SwapHistory.load(record, from: harness.store)])
        let entry = try XCTUnwrap(books.entries.first)
        XCTAssertEqual(entry.outcome, .failed)
        XCTAssertEqual(entry.onchainSat, walletChange, "the report's on-chain change is the wallet's")
        XCTAssertEqual(entry.lockFeeSat, withdrawalFee, "what the lock cost: its withdrawal's fee")
        XCTAssertEqual(books.netMsat, walletChange * 1_000)
    }

    /// H-4: a lock with a descendant in the mempool (here a child on its change; other
    /// swaps' locks chained on it look the same to the node) is never replaced: that would
    /// evict the descendant. Past the cutoff it stays, and a child pays for it instead.
    func testALockWithDescendantsIsNeverTakenBack() async throws {
        let (accept, _, payment, lock) = try await harness.startLockedSwap()
        defer { payment.cancel() }
        let id = accept.swapID
        XCTAssertTrue(harness.hub.chain.hold(lock.txid))
        try await harness.wallet.sync()
        let child = try await harness.wallet.bumpByChild(of: lock.txid, feeRate: try FeeRate(satPerKvB: 3_000))
        XCTAssertEqual(harness.hub.chain.mempoolEntry(lock.txid)?.descendantCount, 2)
        try await harness.mine(Int(accept.timeoutHeight) - TimelockPolicy.firstClaimCutoff - harness.hub.height + 2)
        try await harness.waitFor("the blocks handled", pollingChain: false) { true }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertTrue(harness.hub.inMempool(lock.txid), "not replaced")
        XCTAssertTrue(harness.hub.inMempool(child.txid), "its descendant not evicted")
        let kind = try await harness.lastKind(id)
        XCTAssertEqual(kind, "lock_broadcast")
    }

    /// Issue 22: a flood of pushes for unknown swaps, their ids carrying newlines, forges no
    /// log line and writes no more than one peer's budget (the rest summed up later).
    func testAPushFloodForgesNoLogLineAndStaysWithinItsBudget() async throws {
        let lines = Mutex<[String]>([])
        let engine = ProviderEngine(dependencies: harness.engine.dependencies, configuration: ProviderConfiguration(network: .regtest),
                                    push: harness.pushes.push, log: ProviderLog { line in lines.withLock { $0.append(line) } })
        let attacker = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x66, count: 32))).pubky
        for index in 0..<2_000 {
            let push = PreimagePush(swapID: "x\nprovider swap \(index): claim_observed -> settled", preimage: [UInt8](repeating: 1, count: 32))
            await engine.receive(push: push.encoded, from: attacker)
        }
        let written = lines.withLock { $0 }
        XCTAssertEqual(written.count, LogThrottle().perWindow)
        XCTAssertFalse(written.contains { $0.contains(where: \.isNewline) }, "\(written.first ?? "")")
        XCTAssertTrue(written.allSatisfy { $0.hasPrefix("preimage push from ") })
    }
}
