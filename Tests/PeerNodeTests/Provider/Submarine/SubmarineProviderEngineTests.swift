import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// The submarine provider engine against the hub: real LND REST for the provider and the
/// payee, a kernel-validated chain whose backend kernel-verifies every broadcast, and a
/// client played by hand (its request, its verified accept, its lock from a real wallet).
final class SubmarineProviderEngineTests: XCTestCase {
    var harness: SubmarineProviderHarness!

    override func tearDown() async throws {
        await harness?.shutDown()
        harness = nil
    }

    private func start(confirmations: Int = 1) async throws {
        harness = try await SubmarineProviderHarness.start(
            storePath: try StoreFixture.directory(for: self) + "/provider.sqlite", confirmations: confirmations)
    }

    func testLockConfirmedInvoicePaidPreimageLearnedClaimConfirmedValueConserved() async throws {
        try await start()
        let providerBefore = try harness.hub.balanceMsat("provider")
        let amount: Int64 = 50_000
        let (invoice, quote, accept, contract) = try await harness.startSwap(amount: amount)
        let id = accept.swapID
        XCTAssertEqual(accept.amountSat, amount)
        XCTAssertEqual(accept.totalSat, quote.totalSat)
        XCTAssertEqual(Int(accept.timeoutHeight), harness.hub.height + SubmarineProviderHarness.timeoutBlocks)
        // Stored before the accept left; the claim key is the seed's for the swap's index.
        let recordFound = try await harness.store.swap(id)
        let record = try XCTUnwrap(recordFound)
        XCTAssertEqual(record.role, .provider)
        XCTAssertTrue(SubmarineProviderRecord.isSubmarine(record))
        let claimKey = try SwapKeyChain(seed: SubmarineProviderHarness.providerSeed, network: .regtest)
            .secrets(index: record.swapIndex, scheme: record.keyScheme).claimKey
        XCTAssertEqual(accept.claimPublicKey, claimKey.publicKey)
        let kinds = try await harness.kinds(id)
        XCTAssertEqual(kinds, ["accepted"])

        // The lock in the mempool is seen, not paid for (0 confirmations).
        let lock = try await harness.lock(contract, amount: accept.totalSat)
        try await harness.waitForState(.lockSeen, of: id)
        XCTAssertNil(harness.providerPayment(invoice.paymentHash))

        // One confirmation: intent recorded, payment sent, preimage learned, claim out.
        try await harness.mine(1)
        try await harness.waitFor("the claim accepted by the node") {
            guard case .claimBroadcast(_, _, let claim)? = try await harness.storedState(id) else { return false }
            return claim.acceptedAtHeight != nil
        }
        let path = try await harness.kinds(id)
        // The claim is recorded before its broadcast, then again with the tip the node
        // accepted it at (what its bumps count from).
        XCTAssertEqual(path, ["accepted", "lock_seen", "lock_confirmed", "payment_intent", "payment_in_flight", "paid",
                              "claim_broadcast", "claim_broadcast"])
        let payment = try XCTUnwrap(harness.providerPayment(invoice.paymentHash))
        XCTAssertEqual(payment.status, .succeeded)
        XCTAssertEqual(payment.htlcs.count, 1)
        let payeeInvoice = try await harness.payeeLND.lookupInvoice(paymentHash: invoice.paymentHash)
        XCTAssertEqual(payeeInvoice.state, .settled)
        XCTAssertEqual(try harness.hub.balanceMsat("payee"), UInt64(amount) * 1_000)

        guard case .claimBroadcast(let recorded, _, let claim)? = try await harness.storedState(id) else {
            return XCTFail("expected the claim in the last event")
        }
        XCTAssertEqual(recorded.txid, lock.txid)
        XCTAssertEqual(claim.acceptedAtHeight, UInt32(harness.hub.height))
        XCTAssertTrue(harness.hub.inMempool(claim.txid))
        XCTAssertTrue(harness.hub.backend.verifiedTransactions.contains(claim.txid))
        XCTAssertEqual(claim.transaction.inputs.map(\.previousOutput), [recorded.output.outPoint])
        // The claim's witness carries the preimage: the client's proof of payment.
        guard case .claim(let preimage) = PreimageExtractor.spend(claim.transaction.inputs[0].witness, contract: contract) else {
            return XCTFail("the claim's witness does not read as a claim")
        }
        XCTAssertEqual(SHA256.hash(preimage), invoice.paymentHash)

        try await harness.mine(SubmarineProviderMachine.claimFinalDepth)
        try await harness.waitForState(.claimed, of: id)
        XCTAssertEqual(harness.hub.confirmations(of: claim.txid), SubmarineProviderMachine.claimFinalDepth)

        // Value: the lock is the claim's output plus its fee; the payee got exactly the
        // invoice; the provider paid the invoice and its routing fee on Lightning.
        XCTAssertEqual(claim.transaction.outputs.map(\.value).reduce(0, +) + claim.fee, accept.totalSat)
        let providerAfter = try harness.hub.balanceMsat("provider")
        XCTAssertEqual(providerBefore - providerAfter, UInt64(amount) * 1_000 + payment.feeMsat)
        try await harness.wallet.sync()
        let claimed = await harness.wallet.transaction(claim.txid)
        XCTAssertNotNil(claimed, "the claim pays the provider's wallet")
        try await harness.waitFor("the swap to leave the engine") { await harness.engine.activeSwapIDs.isEmpty }
        XCTAssertEqual(harness.liquidity.promisedSat, 0)

        // The books (status API, `/metrics`) read the submarine record: the invoice and its
        // routing fee out on Lightning, the lock less the claim's fee in on chain.
        let books = try await StatusBooks.load(from: harness.store)
        let entry = try XCTUnwrap(books.swaps.first { $0.record.id == id }?.entry)
        XCTAssertEqual(entry.outcome, .completed)
        XCTAssertEqual(entry.routingFeeMsat, Int64(payment.feeMsat))
        XCTAssertEqual(entry.lightningMsat, -(amount * 1_000 + Int64(payment.feeMsat)))
        XCTAssertEqual(entry.onchainSat, accept.totalSat - claim.fee)
        XCTAssertEqual(entry.claimFeeSat, claim.fee)
        XCTAssertEqual(entry.serviceFeeSat, quote.serviceFeeSat)
    }

    /// A claim no block takes is bumped after 3 blocks; then a miner that kept the first
    /// version mines it after all (`mineTransaction`: the bump is evicted as its conflict).
    /// The books count the version the chain holds: its fee, its output, not the bump's,
    /// which never confirmed (the client's refunds had the same bug, `mined_refund_txid`).
    func testAnEarlierClaimVersionMinedAfterItsBumpIsTheOneTheBooksCount() async throws {
        try await start()
        let (_, _, accept, contract) = try await harness.startSwap()
        let id = accept.swapID
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        var first: SubmarineClaim?
        try await harness.waitFor("the first claim accepted by the node") {
            guard case .claimBroadcast(_, _, let claim)? = try await harness.storedState(id), claim.acceptedAtHeight != nil else {
                return false
            }
            first = claim
            return true
        }
        let original = try XCTUnwrap(first)
        XCTAssertTrue(harness.hub.chain.hold(original.txid), "no block takes the first version")
        try await harness.mine(ClaimPolicy.default.bumpAfterUnconfirmedBlocks)
        var bump: SubmarineClaim?
        try await harness.waitFor("a bump replaces it") {
            guard case .claimBroadcast(_, _, let claim)? = try await harness.storedState(id), claim.txid != original.txid else {
                return false
            }
            bump = claim
            return harness.hub.inMempool(claim.txid)
        }
        let replacement = try XCTUnwrap(bump)
        XCTAssertGreaterThan(replacement.fee, original.fee)
        XCTAssertFalse(harness.hub.inMempool(original.txid), "replaced (BIP125)")

        try harness.hub.chain.mineTransaction(original.transaction, to: HubFixture.elsewhere.script)
        XCTAssertNotNil(harness.hub.confirmations(of: original.txid))
        XCTAssertFalse(harness.hub.inMempool(replacement.txid), "the bump conflicts with the mined version")
        try await harness.mine(SubmarineProviderMachine.claimFinalDepth - 1)
        try await harness.waitForState(.claimed, of: id)
        XCTAssertEqual(harness.hub.confirmations(of: original.txid), SubmarineProviderMachine.claimFinalDepth)
        XCTAssertNil(harness.hub.confirmations(of: replacement.txid))

        let books = try await StatusBooks.load(from: harness.store)
        let entry = try XCTUnwrap(books.swaps.first { $0.record.id == id }?.entry)
        XCTAssertEqual(entry.outcome, .completed)
        XCTAssertEqual(entry.claimFeeSat, original.fee, "the mined version's fee, not the bump's (\(replacement.fee))")
        XCTAssertEqual(entry.onchainSat, original.transaction.outputs.map(\.value).reduce(0, +),
                       "what the wallet got: the mined version's output")
        XCTAssertEqual(entry.onchainSat, accept.totalSat - original.fee)
    }

    func testALockPayingLessThanAgreedIsNeverPaidFor() async throws {
        try await start()
        let (invoice, _, accept, contract) = try await harness.startSwap()
        let id = accept.swapID
        try await harness.lock(contract, amount: accept.totalSat - 1)
        // In the mempool it may be a stranger's payment: nothing happens until it confirms.
        try await harness.mine(1)
        try await harness.waitForState(.lockMismatch, of: id)
        guard case .lockMismatch(_, let mismatch)? = try await harness.storedState(id) else { return XCTFail("expected a mismatch") }
        XCTAssertEqual(mismatch, .amountShort(agreedSat: accept.totalSat, lockedSat: accept.totalSat - 1))
        try await harness.mine(2)
        XCTAssertNil(harness.providerPayment(invoice.paymentHash))
        XCTAssertEqual(try harness.hub.balanceMsat("payee"), 0)
        let active = await harness.engine.activeSwapIDs
        XCTAssertTrue(active.isEmpty)
    }

    func testAStopRightAfterThePaymentIntentNeverSendsThePaymentAfterTheRestart() async throws {
        try await start()
        let (invoice, _, accept, contract) = try await harness.startSwap()
        let id = accept.swapID
        try await harness.restart { StoppingSwapStore(base: $0, kind: "payment_intent") }
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitForState(.paymentIntent, of: id)
        // The intent is on disk, the send never happened.
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertNil(harness.providerPayment(invoice.paymentHash))

        try await harness.restart()
        try await harness.waitForState(.paymentFailed, of: id)
        XCTAssertNil(harness.providerPayment(invoice.paymentHash), "a restart tracks the payment; it never sends it")
        // The client's refund becomes valid at the timeout: nothing here is the provider's.
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height)
        try await harness.waitForState(.released, of: id)
        XCTAssertNil(harness.providerPayment(invoice.paymentHash))
    }

    /// A swap accepted for the payee's hold invoice of 40,000 sat: the payee keeps the HTLC
    /// until the test settles it with `preimage`.
    private func acceptHeldSwap(preimage: [UInt8]) async throws -> (SubmarineSwapAccept, SwapContract) {
        let hash = SHA256.hash(preimage)
        let amount: Int64 = 40_000
        let bolt11 = try await harness.payeeLND.addHoldInvoice(paymentHash: hash, amountMsat: UInt64(amount) * 1_000,
                                                              memo: "held", expirySeconds: 3_600, cltvExpiry: 18)
        let quote = try await harness.quote(amount: amount, paymentHash: hash)
        let request = try harness.request(quote: quote, invoice: bolt11)
        return try await harness.accept(request, quote: quote, paymentHash: hash)
    }

    /// The send stream goes silent after its first update and never ends (a connection
    /// whose far end vanished without a FIN: LND's host lost, a NAT dropping the flow) while
    /// the payment succeeds. Before, the swap followed that one stream for ever, every
    /// block's tracking was skipped, and the client refunded at the timeout with the invoice
    /// paid (review of 2026-12-07). Each block now looks the payment up beside the stream.
    func testASendStreamThatGoesSilentIsLookedUpAtTheNextBlockAndTheSuccessClaimed() async throws {
        try await start()
        let preimage = [UInt8](repeating: 0x78, count: 32)
        let hash = SHA256.hash(preimage)
        let (accept, contract) = try await acceptHeldSwap(preimage: preimage)
        let id = accept.swapID
        harness.hub.servers["provider"]!.handler.faults.inject(.sendStreamSilent)
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitForState(.paymentInFlight, of: id)
        try await harness.payeeLND.settleInvoice(preimage: preimage)
        XCTAssertEqual(harness.providerPayment(hash)?.status, .succeeded)
        // The stream says nothing of it; the next block's look does.
        try await harness.mine(1)
        try await harness.waitForState(.claimBroadcast, of: id)
        guard case .claimBroadcast(_, let learned, _)? = try await harness.storedState(id) else { return XCTFail() }
        XCTAssertEqual(learned, preimage)
        XCTAssertEqual(harness.hub.servers["provider"]!.handler.faults.sendRequestsByHash[hash.hex], 1, "sent once")
        let fee = try await SubmarineProviderEngine.recordedRoutingFee(id, in: harness.store)
        XCTAssertEqual(fee, Int64(harness.providerPayment(hash)?.feeMsat ?? 1), "the routing fee is recorded from the lookup")
        try await harness.mine(SubmarineProviderMachine.claimFinalDepth)
        try await harness.waitForState(.claimed, of: id)
    }

    /// LND-5: the provider's LND takes the payment and stops before the stream's first
    /// update, so the send is answered with its shutdown error and no stream. The payment
    /// is under way: it is looked up before the send is called refused, followed, and
    /// claimed for; the swap is never recorded `payment_failed` (nor offered a refund).
    func testASendAnsweredWithAnErrorAfterLNDTookThePaymentIsFollowedNeverFailed() async throws {
        try await start()
        let preimage = [UInt8](repeating: 0x79, count: 32)
        let hash = SHA256.hash(preimage)
        let (accept, contract) = try await acceptHeldSwap(preimage: preimage)
        let id = accept.swapID
        harness.hub.servers["provider"]!.handler.faults.inject(.sendErrorAfterStart)
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitForState(.paymentInFlight, of: id)
        try await harness.payeeLND.settleInvoice(preimage: preimage)
        try await harness.waitForState(.claimBroadcast, of: id)
        XCTAssertEqual(harness.hub.servers["provider"]!.handler.faults.sendRequestsByHash[hash.hex], 1, "sent once")
        let kinds = try await harness.store.events(of: id).map(\.kind)
        XCTAssertFalse(kinds.contains("payment_failed"), "\(kinds)")
    }

    func testAPayeeHoldingTheHTLCIsBoundedByTheCLTVLimitAndARestartTracksThePaymentItSentOnce() async throws {
        try await start()
        let preimage = [UInt8](repeating: 0x77, count: 32)
        let hash = SHA256.hash(preimage)
        let (accept, contract) = try await acceptHeldSwap(preimage: preimage)
        let id = accept.swapID
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitForState(.paymentInFlight, of: id)
        guard case .paymentInFlight(_, let cltvLimit)? = try await harness.storedState(id) else { return XCTFail() }
        let paidAt = harness.hub.height
        XCTAssertEqual(Int(cltvLimit), Int(accept.timeoutHeight) - paidAt - SubmarineRules.cltvMarginBlocks)
        let attempt = try XCTUnwrap(harness.providerPayment(hash)?.htlcs.first)
        // The route's whole time lock stays inside the limit: the payee cannot hold the
        // HTLC past the provider's claim window before the client's refund.
        XCTAssertLessThanOrEqual(attempt.totalTimeLock, paidAt + Int(cltvLimit))
        XCTAssertLessThanOrEqual(attempt.totalTimeLock, Int(accept.timeoutHeight) - SubmarineRules.cltvMarginBlocks)

        // The node stops while the payment is held; the restart follows it, never resends.
        try await harness.restart()
        try await harness.mine(1)
        try await harness.payeeLND.settleInvoice(preimage: preimage)
        try await harness.waitForState(.claimBroadcast, of: id)
        let payment = try XCTUnwrap(harness.providerPayment(hash))
        XCTAssertEqual(payment.status, .succeeded)
        XCTAssertEqual(payment.htlcs.count, 1, "one payment, sent once")
        guard case .claimBroadcast(_, let learned, let claim)? = try await harness.storedState(id) else { return XCTFail() }
        XCTAssertEqual(learned, preimage)
        XCTAssertTrue(harness.hub.backend.verifiedTransactions.contains(claim.txid))
        XCTAssertLessThan(harness.hub.height, Int(accept.timeoutHeight) - SubmarineRules.claimWindowBlocks)
        try await harness.mine(SubmarineProviderMachine.claimFinalDepth)
        try await harness.waitForState(.claimed, of: id)
    }

    /// SUB-CLTV-1: LND counts `cltv_limit` from its own best block. With the chain backend
    /// 3 blocks behind LND when the lock confirms, the limit LND is given is 3 smaller than
    /// the one counted from the backend, so the route's time lock ends where it would have
    /// with both at one height, outside the claim window.
    func testTheCLTVLimitIsCountedFromLNDsHeightWhenTheBackendLags() async throws {
        try await start()
        let preimage = [UInt8](repeating: 0x78, count: 32)
        let hash = SHA256.hash(preimage)
        let (accept, contract) = try await acceptHeldSwap(preimage: preimage)
        let id = accept.swapID
        try await harness.lock(contract, amount: accept.totalSat)
        // The backend stops at the lock's block while the chain, and LND, go 3 further.
        harness.hub.backend.hideTopBlocks(3)
        try harness.hub.mine(4)
        try await harness.follower.poll()
        let lockHeight = harness.hub.height - 3
        try await harness.waitForState(.paymentInFlight, of: id)
        guard case .paymentInFlight(_, let counted)? = try await harness.storedState(id) else { return XCTFail() }
        XCTAssertEqual(Int(counted), Int(accept.timeoutHeight) - lockHeight - SubmarineRules.cltvMarginBlocks,
                       "the machine counts from the backend's tip")
        let payment = try XCTUnwrap(harness.providerPayment(hash))
        XCTAssertEqual(Int(payment.cltvLimit), Int(counted) - 3, "LND is given the limit counted from its own height")
        XCTAssertEqual(harness.hub.height + Int(payment.cltvLimit), Int(accept.timeoutHeight) - SubmarineRules.cltvMarginBlocks)
        harness.hub.backend.hideTopBlocks(0)
        try await harness.follower.poll()
        try await harness.payeeLND.settleInvoice(preimage: preimage)
        try await harness.waitForState(.claimBroadcast, of: id)
    }

    func testInvoicesThatExpireTooSoonPayTheProviderOrAskAnotherAmountAreRefusedAndNothingIsStored() async throws {
        try await start()
        // Expires before 1 confirmation at 10-minute blocks plus the 30-minute margin.
        let short = try await harness.payeeInvoice(amountSat: 30_000, expirySeconds: 1_200)
        try await assertRefused(invoice: short.paymentRequest, amount: 30_000, hash: short.paymentHash, id: "short",
                                code: "invoice_expires_too_soon")
        // The provider's own invoice.
        let own = try await harness.providerLND.addInvoice(amountMsat: 30_000_000, memo: "self", expirySeconds: 3_600,
                                                            cltvExpiry: 18)
        try await assertRefused(invoice: own.paymentRequest, amount: 30_000, hash: own.paymentHash, id: "own",
                                code: "invoice_pays_provider")
        // Another amount than the quote's.
        let other = try await harness.payeeInvoice(amountSat: 30_001)
        try await assertRefused(invoice: other.paymentRequest, amount: 30_000, hash: other.paymentHash, id: "amount",
                                code: "invoice_amount_mismatch")
        let all = try await harness.store.allSwaps(limit: 10)
        XCTAssertTrue(all.isEmpty, "nothing stored as accepted")
        XCTAssertEqual(harness.liquidity.promisedSat, 0)
    }

    private func assertRefused(invoice: String, amount: Int64, hash: [UInt8], id: String, code: String,
                               file: StaticString = #filePath, line: UInt = #line) async throws {
        let quote = try await harness.quote(amount: amount, paymentHash: hash, id: id)
        let reply = try await harness.send(try harness.request(quote: quote, invoice: invoice, requestID: "swap-\(id)"))
        guard case .reject(let reject) = reply else { return XCTFail("expected a Reject, got \(reply)", file: file, line: line) }
        XCTAssertEqual(reject.code, .invalidRequest, file: file, line: line)
        XCTAssertTrue(reject.reason.hasPrefix(code + ":"), "\(reject.reason)", file: file, line: line)
        let stored = try await harness.store.swap(quote.quoteID)
        XCTAssertNil(stored, file: file, line: line)
    }

    func testAReorgThatTakesTheLockOutBeforeThePaymentSendsTheSwapBackToWaitingAndNothingIsPaid() async throws {
        try await start()
        let (invoice, _, accept, contract) = try await harness.startSwap()
        let id = accept.swapID
        // No Lightning balance yet: the confirmed lock waits for the payment to be possible.
        try harness.hub.lightning.setBalance(node: "provider", balanceMsat: 0)
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitForState(.lockConfirmed, of: id)
        let block = try XCTUnwrap(harness.hub.chain.blockHash(atHeight: harness.hub.height))
        try harness.hub.chain.invalidateBlock(block)
        try await harness.waitForState(.lockSeen, of: id)
        XCTAssertNil(harness.providerPayment(invoice.paymentHash))

        // Liquidity back, still unconfirmed: nothing is paid until the lock is in a block again.
        try harness.hub.lightning.setBalance(node: "provider", balanceMsat: SubmarineProviderHarness.providerLightningMsat)
        try await Task.sleep(for: .milliseconds(300))
        try await harness.follower.poll()
        XCTAssertNil(harness.providerPayment(invoice.paymentHash))
        try await harness.mine(1)
        try await harness.waitForState(.claimBroadcast, of: id)
        XCTAssertEqual(harness.providerPayment(invoice.paymentHash)?.htlcs.count, 1)
    }

    func testAResendGetsTheSameAcceptAndTwoConfirmationsAreWaitedFor() async throws {
        try await start(confirmations: 2)
        let invoice = try await harness.payeeInvoice(amountSat: 25_000)
        let quote = try await harness.quote(amount: 25_000, paymentHash: invoice.paymentHash)
        XCTAssertEqual(quote.requiredConfirmations, 2)
        let request = try harness.request(quote: quote, invoice: invoice.paymentRequest)
        let (accept, contract) = try await harness.accept(request, quote: quote, paymentHash: invoice.paymentHash)
        // The same request again: the stored accept; under another id, re-signed for it;
        // another refund key for the same quote: the quote is used.
        let (again, _) = try await harness.accept(request, quote: quote, paymentHash: invoice.paymentHash)
        XCTAssertEqual(again, accept)
        let renamed = try harness.request(quote: quote, invoice: invoice.paymentRequest, requestID: "swap-1-again")
        let (resigned, _) = try await harness.accept(renamed, quote: quote, paymentHash: invoice.paymentHash)
        XCTAssertEqual(resigned.requestID, "swap-1-again")
        XCTAssertEqual(resigned.htlcAddress, accept.htlcAddress)
        guard case .reject(let used) = try await harness.send(try harness.request(quote: quote, invoice: invoice.paymentRequest,
                                                                                  index: 1, requestID: "swap-2")) else {
            return XCTFail("expected a Reject")
        }
        XCTAssertEqual(used.code, .unknownQuote)
        let all = try await harness.store.allSwaps(limit: 10)
        XCTAssertEqual(all.count, 1)

        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitFor("the lock seen at 1 confirmation") {
            guard case .lockSeen(let lock)? = try await harness.storedState(accept.swapID) else { return false }
            return harness.hub.confirmations(of: lock.txid) == 1
        }
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertNil(harness.providerPayment(invoice.paymentHash), "1 of 2 confirmations: not paid")
        try await harness.mine(1)
        try await harness.waitForState(.claimBroadcast, of: accept.swapID)
        XCTAssertEqual(try harness.hub.balanceMsat("payee"), 25_000_000)
    }

    func testPromisedSwapsCountAgainstLightningLiquidityAndANeverLockedSwapIsAbandonedAndReleased() async throws {
        try await start()
        try harness.hub.lightning.setBalance(node: "provider", balanceMsat: 100_000_000)
        let acceptedAt = harness.hub.height
        let (_, _, accept, _) = try await harness.startSwap(amount: 60_000)
        XCTAssertEqual(harness.liquidity.promisedSat, 60_000 + 1 + 60)
        // What is left after the promise cannot carry a second swap of the same size: the
        // offer's maximum shrinks, and a quote for it is refused.
        let reply = await harness.desk.answer(OfferRequest(requestID: "o2", network: "regtest").encoded, from: harness.client.pubky)
        guard case .offer(let offer)? = try reply.map({ try SwapMessage(bytes: $0) }) else { return XCTFail("no offer") }
        let spendable = Int64(try await harness.providerLND.spendableBalance() / 1_000)
        let terms = try XCTUnwrap(offer.body.terms(for: .onchainToLightning))
        XCTAssertEqual(terms.maxAmountSat, try SubmarineTerms().payableAmount(outboundSat: spendable - harness.liquidity.promisedSat))
        let second = try await harness.payeeInvoice(amountSat: 60_000)
        let refused = await harness.desk.answer(QuoteRequest(requestID: "q2", offerID: offer.body.offerID,
                                                             direction: .onchainToLightning, amountSat: 60_000,
                                                             paymentHash: second.paymentHash).encoded, from: harness.client.pubky)
        guard case .reject(let reject)? = try refused.map({ try SwapMessage(bytes: $0) }) else { return XCTFail("expected a Reject") }
        XCTAssertEqual(reject.code, .amountOutOfRange, reject.reason)

        // No lock comes: past the lock's deadline after the accept (SUB-LIQ-1), or once even
        // a lock confirming next could not be paid under the CLTV limit (T − (tip + 1) − 12
        // < 18 + 3), whichever comes first, the swap is abandoned and its promise freed.
        let lastPayable = Int(accept.timeoutHeight) - 1 - SubmarineRules.cltvMarginBlocks - 18 - 3
        let lastWaiting = min(lastPayable, acceptedAt + SubmarineRules.lockWaitBlocks)
        XCTAssertLessThan(lastWaiting, lastPayable, "the deadline comes first, long before the CLTV bound")
        try await harness.mine(lastWaiting - harness.hub.height)
        try await Task.sleep(for: .milliseconds(200))
        let waiting = try await harness.lastKind(accept.swapID)
        XCTAssertEqual(waiting, "accepted")
        try await harness.mine(1)
        try await harness.waitForState(.abandoned, of: accept.swapID)
        let ended = try await harness.storedState(accept.swapID)
        XCTAssertEqual(ended, .abandoned(.noLockInTime))
        try await harness.waitFor("the promise released") { harness.liquidity.promisedSat == 0 }
        XCTAssertNil(harness.providerPayment(second.paymentHash))
    }

    func testOffersListOnchainToLightningTermsBoundedByWhatLightningCanSend() async throws {
        try await start()
        let reply = await harness.desk.answer(OfferRequest(requestID: "o", network: "regtest").encoded, from: harness.client.pubky)
        guard case .offer(let offer)? = try reply.map({ try SwapMessage(bytes: $0) }) else { return XCTFail("no offer") }
        let terms = try XCTUnwrap(offer.body.terms(for: .onchainToLightning))
        XCTAssertEqual(terms.maxAmountSat, SubmarineTerms.defaultMaxAmountSat)
        try harness.hub.lightning.setBalance(node: "provider", balanceMsat: 200_000_000)
        let spendable = Int64(try await harness.providerLND.spendableBalance() / 1_000)
        let later = await harness.desk.answer(OfferRequest(requestID: "o2", network: "regtest").encoded, from: harness.client.pubky)
        guard case .offer(let smaller)? = try later.map({ try SwapMessage(bytes: $0) }) else { return XCTFail("no offer") }
        let bounded = try XCTUnwrap(smaller.body.terms(for: .onchainToLightning))
        XCTAssertEqual(bounded.maxAmountSat, try SubmarineTerms().payableAmount(outboundSat: spendable))
        XCTAssertLessThan(bounded.maxAmountSat, spendable)
    }
}
