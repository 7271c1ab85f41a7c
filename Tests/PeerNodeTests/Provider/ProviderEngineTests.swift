import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// The provider engine against the hub: real LND REST over loopback for both Lightning
/// nodes, a kernel-validated chain whose backend kernel-verifies every broadcast.
final class ProviderEngineTests: ProviderHarnessTestCase {
    func testSwapRequestCreatesAHoldInvoiceMatchingTheQuoteAndAResendGetsTheSameAccept() async throws {
        let secrets = try harness.secrets(0)
        let quote = try await harness.quote(amount: 100_000)
        let tip = harness.hub.height
        let request = harness.swapRequest(for: quote, secrets: secrets)
        let signed = try await harness.accept(request)
        let accept = signed.body

        XCTAssertEqual(accept.swapID, quote.quoteID)
        XCTAssertEqual(accept.amountSat, quote.amountSat)
        XCTAssertEqual(accept.totalSat, quote.totalSat)
        XCTAssertEqual(accept.paymentHash, secrets.paymentHash)
        XCTAssertEqual(accept.claimPublicKey, secrets.claimKey.publicKey)
        XCTAssertEqual(accept.scriptType, .taprootBoltz)
        XCTAssertEqual(Int(accept.timeoutHeight), tip + ProviderHarness.htlcTimeoutBlocks)
        _ = try harness.contract(of: accept)

        // The refund key is the seed's key for the swap's index.
        let recordFound = try await harness.store.swap(accept.swapID)
        let record = try XCTUnwrap(recordFound)
        XCTAssertEqual(record.role, .provider)
        XCTAssertEqual(record.peer, harness.client.pubky.description)
        let refundKey = try SwapKeyChain(seed: ProviderHarness.providerSeed, network: .regtest).secrets(index: record.swapIndex, scheme: record.keyScheme).refundKey
        XCTAssertEqual(accept.refundPublicKey, refundKey.publicKey)

        // The hold invoice: the quote's total, DESIGN 6's CLTV delta, our hash.
        let invoice = try await harness.providerLND.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(invoice.state, .open)
        XCTAssertEqual(invoice.amountMsat, UInt64(quote.totalSat) * 1_000)
        XCTAssertEqual(invoice.cltvExpiry, UInt64(ProviderHarness.htlcTimeoutBlocks + 72))
        XCTAssertEqual(invoice.paymentRequest, accept.invoice)
        let decoded = try await harness.payerLND.decodeInvoice(accept.invoice)
        XCTAssertEqual(decoded.paymentHash, secrets.paymentHash)
        XCTAssertEqual(decoded.amountMsat, UInt64(quote.totalSat) * 1_000)
        XCTAssertEqual(decoded.cltvExpiry, UInt64(ProviderHarness.htlcTimeoutBlocks + 72))

        // The identical request again: the same bytes. Under another request id: the same
        // swap, signed again for that id.
        let again = try await harness.accept(request)
        XCTAssertEqual(again.encoded, signed.encoded)
        var renamed = try await harness.accept(harness.swapRequest(for: quote, secrets: secrets, requestID: "swap-1-again")).body
        XCTAssertEqual(renamed.requestID, "swap-1-again")
        renamed.requestID = accept.requestID
        XCTAssertEqual(renamed, accept)
        let all = try await harness.store.allSwaps(limit: 10)
        XCTAssertEqual(all.count, 1)

        // The same quote with another hash is a used quote.
        let other = harness.swapRequest(for: quote, secrets: try harness.secrets(1))
        guard case .reject(let reject) = try await harness.send(other) else { return XCTFail("expected a Reject") }
        XCTAssertEqual(reject.code, .unknownQuote)

        // Status: pending, with the timeout.
        guard case .swapStatusSnapshot(let snapshot) = try await harness.send(SwapStatusRequest(requestID: "s", swapID: accept.swapID)) else {
            return XCTFail("expected a snapshot")
        }
        XCTAssertEqual(snapshot.status, .invoicePending)
        XCTAssertEqual(snapshot.timeoutHeight, accept.timeoutHeight)
        XCTAssertNil(snapshot.lock)
        guard case .reject(let missing) = try await harness.send(SwapStatusRequest(requestID: "s2", swapID: "nope")) else {
            return XCTFail("expected a Reject")
        }
        XCTAssertEqual(missing.code, .notFound)
    }

    func testP2WSHOnRequest() async throws {
        let (accept, _, payment) = try await harness.startSwap(scriptType: .p2wsh)
        payment.cancel()
        XCTAssertEqual(accept.scriptType, .p2wsh)
        guard case .witnessScript = accept.scripts else { return XCTFail("expected a witness script") }
        let contract = try harness.contract(of: accept)
        XCTAssertEqual(contract.type, .p2wsh)
    }

    func testPaidInvoiceLeadsToALockAndTheClaimSettlesTheInvoice() async throws {
        let providerBefore = try harness.hub.balanceMsat("provider")
        let (accept, secrets, payment) = try await harness.startSwap()
        let id = accept.swapID
        try await harness.waitForState(.lockBroadcast, of: id)

        // The lock: recorded first, then in the mempool, kernel-verified, paying the contract.
        let kinds = try await harness.kinds(id)
        XCTAssertEqual(kinds, ["invoice_created", "invoice_accepted", "funding_intent", "lock_broadcast"])
        let lockFound = try await harness.recordedLock(id)
        let lock = try XCTUnwrap(lockFound)
        let contract = try harness.contract(of: accept)
        XCTAssertTrue(harness.hub.inMempool(lock.txid))
        XCTAssertTrue(harness.hub.backend.verifiedTransactions.contains(lock.txid))
        XCTAssertEqual(lock.transaction.outputs[Int(lock.outputIndex)], contract.lockOutput(value: accept.amountSat))
        XCTAssertEqual(harness.hub.transactions(paying: contract.scriptPubKey, fromHeight: harness.hub.height).count, 1)

        // The client heard of it with the raw lock, in sequence.
        // Pushed right after the state is stored.
        try await harness.waitForPush(.lockBroadcast, of: id)
        let updates = harness.pushes.updates(of: id)
        XCTAssertEqual(updates.map(\.status), [.invoiceAccepted, .lockBroadcast])
        XCTAssertEqual(updates.map(\.sequence), [2, 3])
        XCTAssertEqual(updates.last?.lockTransactionHex, lock.transaction.serialized.hex)
        XCTAssertEqual(updates.last?.lock, LockReference(txid: lock.txid.hex, vout: lock.outputIndex))

        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)

        // The client claims (the real claim code), kernel-verified on broadcast.
        try await harness.broadcastClaim(of: accept, lock: lock, secrets: secrets)
        try await harness.waitForState(.settled, of: id)

        let status = try await payment.value
        guard case .succeeded(let preimage)? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(preimage, secrets.preimage)
        XCTAssertEqual(try harness.hub.balanceMsat("provider") - providerBefore, UInt64(accept.totalSat) * 1_000)
        let invoice = try await harness.providerLND.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(invoice.state, .settled)
        let observed = try await harness.kinds(id).suffix(2)
        XCTAssertEqual(observed, ["claim_observed", "settled"])
        try await harness.waitForPush(.settled, of: id)
        XCTAssertEqual(harness.pushes.updates(of: id).map(\.status), [.invoiceAccepted, .lockBroadcast, .lockConfirmed, .settled])
        XCTAssertEqual(harness.pushes.updates(of: id).map(\.sequence), [2, 3, 4, 5])
        let active = await harness.engine.activeSwapIDs
        XCTAssertTrue(active.isEmpty)
    }

    func testClientThatNeverClaimsIsRefundedAfterTheTimeoutAndItsPaymentReturns() async throws {
        let payerBefore = try harness.hub.balanceMsat("payer")
        let (accept, secrets, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)

        // Up to one block before the timeout nothing happens; at the timeout the refund goes out.
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height - 1)
        let observed = try await harness.lastKind(id)
        XCTAssertEqual(observed, "lock_confirmed")
        try await harness.mine(1)
        try await harness.waitForState(.refundBroadcast, of: id)
        let lastEvent = try await harness.store.lastEvent(of: id)
        guard case .refundBroadcast(_, let refund) = try ProviderSwapState(event: XCTUnwrap(lastEvent)) else {
            return XCTFail("expected the refund in the last event")
        }
        XCTAssertTrue(harness.hub.inMempool(refund.txid))
        XCTAssertTrue(harness.hub.backend.verifiedTransactions.contains(refund.txid))
        XCTAssertEqual(refund.transaction.lockTime, accept.timeoutHeight)
        XCTAssertEqual(refund.transaction.inputs.map(\.previousOutput), [lock.outPoint])
        // The invoice is still held while the refund is unconfirmed: a claim could still come.
        let held = try await harness.providerLND.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(held.state, .accepted)

        // The invoice is given up only once the refund is deep (a reorg could undo it).
        try await harness.mine(ProviderSwapMachine.refundCancelDepth)
        try await harness.waitForState(.refunded, of: id)
        XCTAssertEqual(harness.hub.confirmations(of: refund.txid), ProviderSwapMachine.refundCancelDepth)
        let invoice = try await harness.providerLND.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(invoice.state, .canceled)
        let status = try await payment.value
        guard case .failed? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("payer"), payerBefore)
        // The refund pays the provider's wallet.
        try await harness.wallet.sync()
        let refunded = await harness.wallet.transaction(refund.txid)
        XCTAssertNotNil(refunded)
        try await harness.waitForPush(.refunded, of: id)
    }

    /// A swap whose client never claims, mined to its timeout: the provider's first refund
    /// is out (recorded, not yet confirmed).
    private func swapRefundedOnce() async throws
        -> (id: String, payment: Task<PaymentUpdate.Status?, any Error>, first: ProviderRefund) {
        let (accept, _, payment) = try await harness.startSwap()
        let id = accept.swapID
        try await harness.waitForState(.lockBroadcast, of: id)
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height)
        try await harness.waitForState(.refundBroadcast, of: id)
        let last = try await harness.store.lastEvent(of: id)
        let state = try ProviderSwapState(event: XCTUnwrap(last))
        var first: ProviderRefund?
        if case .refundBroadcast(_, let refund) = state { first = refund }
        return (id, payment, try XCTUnwrap(first, "expected the refund in the last event, got \(state)"))
    }

    func testAnUnconfirmedRefundIsReplacedByOnePayingMoreAtTheNextBlock() async throws {
        let (id, payment, first) = try await swapRefundedOnce()

        // A block arrives and the refund is still unconfirmed (the hub mines whatever is in
        // its mempool, so the block is handed to the engine as the follower would).
        await harness.engine.deliver(.block(height: UInt32(harness.hub.height)), to: id)
        try await harness.waitFor("the replacement refund", pollingChain: false) {
            guard let event = try await harness.store.lastEvent(of: id),
                  case .refundBroadcast(_, let latest) = try ProviderSwapState(event: event) else { return false }
            return latest.txid != first.txid
        }
        let secondEvent = try await harness.store.lastEvent(of: id)
        guard case .refundBroadcast(_, let second) = try ProviderSwapState(event: XCTUnwrap(secondEvent)) else {
            return XCTFail("expected the replacement in the last event")
        }
        XCTAssertGreaterThan(second.feeRate, first.feeRate)
        XCTAssertGreaterThan(second.fee, first.fee)
        XCTAssertEqual(second.destination, first.destination, "every bump pays the same address")
        XCTAssertEqual(second.transaction.inputs.map(\.previousOutput), first.transaction.inputs.map(\.previousOutput))
        XCTAssertFalse(harness.hub.inMempool(first.txid))
        XCTAssertTrue(harness.hub.inMempool(second.txid))
        XCTAssertTrue(harness.hub.backend.verifiedTransactions.contains(second.txid))
        // Recorded before it was broadcast.
        let kinds = try await harness.kinds(id)
        XCTAssertEqual(Array(kinds.suffix(4)), ["refund_intent", "refund_broadcast", "refund_intent", "refund_broadcast"])

        // The invoice is given up only once the refund is deep (a reorg could undo it).
        try await harness.mine(ProviderSwapMachine.refundCancelDepth)
        try await harness.waitForState(.refunded, of: id)
        XCTAssertEqual(harness.hub.confirmations(of: second.txid), ProviderSwapMachine.refundCancelDepth)
        guard case .failed? = try await payment.value else { return XCTFail("the payment did not return") }
    }

    /// A bump that loses the race with a block: the earlier refund confirms after the engine
    /// judged it unconfirmed, so the replacement it records is refused. The swap's record
    /// must name the refund the chain took (its fee is what the wallet paid), not the
    /// replacement that never confirmed (`short-lock` saw 1,242 sat recorded, 1,104 paid).
    func testARefundThatConfirmsWhileItsReplacementIsBuiltIsTheOneRecorded() async throws {
        let (id, _, first) = try await swapRefundedOnce()

        // The block with the refund is found (the follower has not told the engine yet), while
        // the engine acts on its last look, which saw the refund unconfirmed: it bumps.
        try harness.hub.mine(1)
        XCTAssertEqual(harness.hub.confirmations(of: first.txid), 1)
        await harness.engine.deliver(.refundStatus(.unconfirmed, atBlock: true), to: id)
        try await harness.mine(ProviderSwapMachine.refundCancelDepth - 1)
        try await harness.waitForState(.refunded, of: id)

        let events = try await harness.store.events(of: id)
        let recorded = events.reversed().lazy.compactMap { event -> ProviderRefund? in
            guard case .refundBroadcast(_, let refund)? = try? ProviderSwapState(event: event) else { return nil }
            return refund
        }.first
        XCTAssertEqual(recorded?.txid, first.txid, "the record names the refund that confirmed")
        XCTAssertEqual(recorded?.fee, first.fee)
    }

    /// A rescan (a client engine on the same node looking back for its lock) reports old
    /// blocks again. They are not new blocks: an unconfirmed refund is not bumped once per
    /// replayed block (each bump pays more to the miners).
    func testARescanOfOldBlocksDoesNotBumpTheRefundForEach() async throws {
        let (id, _, _) = try await swapRefundedOnce()
        let before = try await harness.kinds(id)
        await harness.follower.rescan(fromHeight: harness.hub.height - 10)
        try await harness.follower.poll()
        // The replayed blocks are in the swap's mailbox at once; handling them takes
        // milliseconds, and any bump would be recorded as a refund_intent.
        try await Task.sleep(for: .seconds(2))
        let after = try await harness.kinds(id)
        XCTAssertEqual(after, before, "11 blocks reported again are not 11 new blocks")
    }

    func testPeerHandlersRouteOffersToTheDeskAndSwapsToTheEngine() async throws {
        let handlers = harness.engine.handlers
        let onRequest = try XCTUnwrap(handlers.onRequest)
        let offer = try SwapMessage(bytes: await onRequest(OfferRequest(requestID: "o").encoded, harness.client.pubky))
        guard case .offer = offer else { return XCTFail("expected an offer, got \(offer)") }
        let status = try SwapMessage(bytes: await onRequest(SwapStatusRequest(requestID: "s", swapID: "none").encoded,
                                                           harness.client.pubky))
        guard case .reject(let reject) = status else { return XCTFail("expected a Reject, got \(status)") }
        XCTAssertEqual(reject.code, .notFound)
        let garbage = try SwapMessage(bytes: await onRequest(Array(#"{"type":"Teleport","request_id":"t"}"#.utf8),
                                                            harness.client.pubky))
        guard case .reject(let unknown) = garbage else { return XCTFail("expected a Reject, got \(garbage)") }
        XCTAssertEqual(unknown.code, .invalidRequest)
        XCTAssertEqual(unknown.requestID, "t")
    }

    func testPreimagePushSettlesWithoutWaitingForTheChain() async throws {
        let (accept, secrets, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID

        // A wrong preimage changes nothing.
        await harness.engine.receive(push: PreimagePush(swapID: id, preimage: try harness.secrets(7).preimage).encoded,
                                     from: harness.client.pubky)
        // From another peer, even the right one is ignored.
        let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x99, count: 32)))
        await harness.engine.receive(push: PreimagePush(swapID: id, preimage: secrets.preimage).encoded, from: stranger.pubky)
        try await Task.sleep(for: .milliseconds(200))
        let observed = try await harness.lastKind(id)
        XCTAssertEqual(observed, "lock_broadcast")

        await harness.engine.receive(push: PreimagePush(swapID: id, preimage: secrets.preimage).encoded,
                                     from: harness.client.pubky)
        try await harness.waitForState(.settled, of: id, pollingChain: false)
        let status = try await payment.value
        guard case .succeeded? = status else { return XCTFail("payment ended \(String(describing: status))") }
        // Nothing was claimed on chain: the push alone settled it.
        XCTAssertNotNil(harness.hub.chain.unspentOutput(lock.outPoint, includeMempool: true))
    }

    func testAClientWithAnUnfinishedSwapIsALiveSwapPeerUntilItEndsAndAfterARestart() async throws {
        XCTAssertTrue(harness.engine.liveClients.all.isEmpty)
        let (accept, secrets, payment, _) = try await harness.startLockedSwap()
        let id = accept.swapID
        // Locked and waiting for the claim: the daemon must not evict this client for a
        // newcomer (ProtectedPeers reads this set).
        XCTAssertEqual(harness.engine.liveClients.all, [harness.client.pubky])

        // A restarted engine resumes the swap, and with it the client's protection.
        try await harness.restart()
        XCTAssertEqual(harness.engine.liveClients.all, [harness.client.pubky])

        await harness.engine.receive(push: PreimagePush(swapID: id, preimage: secrets.preimage).encoded,
                                     from: harness.client.pubky)
        try await harness.waitForState(.settled, of: id, pollingChain: false)
        guard case .succeeded? = try await payment.value else { return XCTFail("the payment did not succeed") }
        XCTAssertTrue(harness.engine.liveClients.all.isEmpty)
    }

    func testAcceptedTooCloseToTheTimeoutIsCancelledAndNothingIsLocked() async throws {
        let payerBefore = try harness.hub.balanceMsat("payer")
        let secrets = try harness.secrets(0)
        let quote = try await harness.quote(amount: 100_000)
        let accept = try await harness.accept(harness.swapRequest(for: quote, secrets: secrets)).body
        let contract = try harness.contract(of: accept)
        // The engine has seen the open invoice with room to lock...
        try await harness.waitFor("the open invoice", pollingChain: false) {
            await harness.engine.invoiceObservation(of: accept.swapID)?.state == .open
        }
        // ...then the client pays late: 36 blocks left, one fewer than 1 confirmation + 36
        // needs. The engine does not see these blocks before the payment arrives.
        try harness.hub.mine(4)
        let payment = harness.pay(accept.invoice)
        try await harness.waitForState(.cancelled, of: accept.swapID, pollingChain: false)

        let observed = try await harness.kinds(accept.swapID)
        XCTAssertEqual(observed, ["invoice_created", "invoice_accepted", "cancelled"])
        let status = try await payment.value
        guard case .failed? = status else { return XCTFail("payment ended \(String(describing: status))") }
        XCTAssertEqual(try harness.hub.balanceMsat("payer"), payerBefore)
        XCTAssertTrue(harness.hub.transactions(paying: contract.scriptPubKey, fromHeight: 0).isEmpty)
        try await harness.waitForPush(.cancelled, of: accept.swapID)
        XCTAssertEqual(harness.pushes.updates(of: accept.swapID).map(\.status), [.invoiceAccepted, .cancelled])
    }

    func testRestartAfterTheFundingIntentPublishesExactlyOneLock() async throws {
        // The first engine records the lock, then its broadcast never happens (as if the
        // process died right after the intent reached the disk).
        harness.hub.backend.failNextBroadcasts(1)
        let (accept, secrets, payment) = try await harness.startSwap()
        let id = accept.swapID
        try await harness.waitForState(.fundingIntent, of: id, pollingChain: false)
        let recordedFound = try await harness.recordedLock(id)
        let recorded = try XCTUnwrap(recordedFound)
        let contract = try harness.contract(of: accept)
        XCTAssertTrue(harness.hub.transactions(paying: contract.scriptPubKey, fromHeight: 0).isEmpty)

        try await harness.restart()
        // Recovery published the recorded lock before `start` returned.
        let observed = try await harness.lastKind(id)
        XCTAssertEqual(observed, "lock_broadcast")
        XCTAssertTrue(harness.hub.inMempool(recorded.txid))
        try await harness.mine(3)
        try await harness.waitForState(.lockConfirmed, of: id)
        let locks = harness.hub.transactions(paying: contract.scriptPubKey, fromHeight: 0)
        XCTAssertEqual(locks.map(\.txid), [recorded.txid])
        XCTAssertEqual(harness.hub.confirmations(of: recorded.txid), 3)

        await harness.engine.receive(push: PreimagePush(swapID: id, preimage: secrets.preimage).encoded,
                                     from: harness.client.pubky)
        try await harness.waitForState(.settled, of: id)
        guard case .succeeded? = try await payment.value else { return XCTFail("the payment did not succeed") }
    }

    func testRestartFindsAClaimMadeWhileTheProviderWasDown() async throws {
        let (accept, secrets, payment, lock) = try await harness.startLockedSwap()
        let id = accept.swapID
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)

        // Down: the claim is broadcast and confirmed while no engine runs.
        await harness.engine.shutdown()
        try await harness.broadcastClaim(of: accept, lock: lock, secrets: secrets)
        try harness.hub.mine(2)
        try await harness.follower.poll()

        try await harness.restart()
        try await harness.waitForState(.settled, of: id)
        guard case .succeeded? = try await payment.value else { return XCTFail("the payment did not succeed") }
    }
}
