import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// The node's LND client against the hub's LND server over loopback TCP: a hold
/// invoice's whole life as a swap drives it, from both sides.
final class LNDClientEndToEndTests: XCTestCase {
    static let payerBalance: UInt64 = 10_000_000_000
    static let amount: UInt64 = 250_000_000
    /// The standard policy's fee for `amount`: 1000 msat + 100 ppm.
    static let fee: UInt64 = 1_000 + 25_000

    func testHoldInvoiceSettlesEndToEnd() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")

        let bobInfo = try await bob.info()
        XCTAssertEqual(bobInfo.identityKey, try hub.network.node("bob").identityKey)
        XCTAssertEqual(bobInfo.alias, "bob")
        XCTAssertEqual(bobInfo.chain, "bitcoin")
        XCTAssertEqual(bobInfo.network, "regtest")
        XCTAssertEqual(bobInfo.blockHeight, SimEnvironment.startHeight)
        XCTAssertTrue(bobInfo.syncedToChain)

        let secret = preimage(0x51)
        let hash = SHA256.hash(secret)
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: "swap 1",
                                                   expirySeconds: 600, cltvExpiry: 144)
        let decoded = try await alice.decodeInvoice(request)
        XCTAssertEqual(decoded.destination, bobInfo.identityKey)
        XCTAssertEqual(decoded.paymentHash, hash)
        XCTAssertEqual(decoded.amountMsat, Self.amount)
        XCTAssertEqual(decoded.cltvExpiry, 144)
        XCTAssertEqual(decoded.expirySeconds, 600)
        XCTAssertEqual(decoded.description, "swap 1")

        let invoiceUpdates = LNDIterator(bob.subscribeInvoice(paymentHash: hash))
        let open = try await lndNext(invoiceUpdates)
        XCTAssertEqual(open?.state, .open)
        XCTAssertEqual(open?.amountMsat, Self.amount)
        XCTAssertEqual(open?.paymentRequest, request)

        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        let inFlight = try await lndNext(payment)
        let afterInitiated = try await lndNext(payment)
        XCTAssertEqual(afterInitiated?.status, .inFlight, "IN_FLIGHT follows INITIATED")
        XCTAssertEqual(inFlight?.status, .inFlight)
        XCTAssertEqual(inFlight?.paymentHash, hash)

        // ACCEPTED, with the HTLC expiring at tip + final CLTV delta + LND's BlockPadding (3).
        let accepted = try await lndNext(invoiceUpdates)
        XCTAssertEqual(accepted?.state, .accepted)
        let expectedExpiry = SimEnvironment.startHeight + 144 + 3
        XCTAssertEqual(accepted?.htlcs, [InvoiceStatus.HTLC(amountMsat: Self.amount, acceptHeight: SimEnvironment.startHeight,
                                                            expiryHeight: expectedExpiry, state: .accepted)])
        XCTAssertEqual(accepted?.earliestHeldExpiry, expectedExpiry)
        // LND counts an accepted HTLC in amt_paid (it was 0 until the settle here).
        XCTAssertEqual(accepted?.amountPaidMsat, Self.amount)
        let looked = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(looked, accepted)
        let locked = try await alice.channelBalance()
        XCTAssertEqual(locked, FunderCommitment.localBalance(Self.payerBalance - Self.amount - Self.fee, htlcs: 1))

        try await bob.settleInvoice(preimage: secret)
        let succeeded = try await lndNext(payment)
        XCTAssertEqual(succeeded?.status, .succeeded(preimage: secret))
        XCTAssertEqual(succeeded?.amountMsat, Self.amount)
        XCTAssertEqual(succeeded?.feeMsat, Self.fee)
        let paymentEnd = try await lndNext(payment)
        XCTAssertNil(paymentEnd)

        let settled = try await lndNext(invoiceUpdates)
        XCTAssertEqual(settled?.state, .settled)
        XCTAssertEqual(settled?.preimage, secret)
        XCTAssertEqual(settled?.amountPaidMsat, Self.amount)
        XCTAssertEqual(settled?.htlcs.map(\.state), [.settled])
        let invoiceEnd = try await lndNext(invoiceUpdates)
        XCTAssertNil(invoiceEnd)

        // A retried settle is harmless, as in LND.
        try await bob.settleInvoice(preimage: secret)
        let bobBalance = try await bob.channelBalance()
        let aliceBalance = try await alice.channelBalance()
        XCTAssertEqual(bobBalance, Self.amount)
        XCTAssertEqual(aliceBalance, FunderCommitment.localBalance(Self.payerBalance - Self.amount - Self.fee))
        XCTAssertTrue(hub.network.balances().isConserved)
        await hub.shutDown(alice, bob)
    }

    func testCancelledHoldInvoiceFailsThePaymentAndRefunds() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let hash = SHA256.hash(preimage(0x52))
        let payment = try await payHeldInvoice(from: alice, to: bob, hash: hash, memo: "swap 2")
        try await within(seconds: 10) {
            while try await bob.lookupInvoice(paymentHash: hash).state != .accepted {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }

        try await bob.cancelInvoice(paymentHash: hash)
        let failed = try await lndNext(payment)
        XCTAssertEqual(failed?.status, .failed(.incorrectPaymentDetails))
        let end = try await lndNext(payment)
        XCTAssertNil(end)

        let invoice = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(invoice.state, .canceled)
        XCTAssertEqual(invoice.htlcs.map(\.state), [.canceled])
        let aliceBalance = try await alice.channelBalance()
        let bobBalance = try await bob.channelBalance()
        XCTAssertEqual(aliceBalance, FunderCommitment.localBalance(Self.payerBalance))
        XCTAssertEqual(bobBalance, 0)
        await hub.shutDown(alice, bob)
    }

    /// `paymentStatus` (TrackPaymentV2's first update): unknown before the payment, in
    /// flight while the payee holds it, failed once the payee cancels (what `swap claim`
    /// asks before reopening a swap, audit H-1).
    func testPaymentStatusTracksAHeldPaymentUntilItIsCancelled() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let hash = SHA256.hash(preimage(0x5c))
        let unknown = try await alice.paymentStatus(paymentHash: hash)
        XCTAssertNil(unknown, "no payment sent for that hash")
        let payment = try await payHeldInvoice(from: alice, to: bob, hash: hash, memo: "swap 3")
        try await within(seconds: 10) {
            while try await bob.lookupInvoice(paymentHash: hash).state != .accepted {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        let held = try await alice.paymentStatus(paymentHash: hash)
        XCTAssertEqual(held, .inFlight)
        try await bob.cancelInvoice(paymentHash: hash)
        _ = try await lndNext(payment)
        let cancelled = try await alice.paymentStatus(paymentHash: hash)
        XCTAssertEqual(cancelled, .failed(.incorrectPaymentDetails))
        await hub.shutDown(alice, bob)
    }

    /// Issue 15: LND writes `routerrpc server shutting down` on a send stream it had
    /// accepted when it stops. The payment goes on in LND, so the client reads that line
    /// as "status unknown" (it was `.lnd`, which the swap took for a refusal and ended
    /// failed while the payee held the HTLC), and `trackPayment` follows it to the end.
    func testAnErrorLineAfterTheSendStartedIsStatusUnknownAndTrackingFollowsThePayment() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let secret = preimage(0x5d)
        let hash = SHA256.hash(secret)
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: "swap 4",
                                                   expirySeconds: 600, cltvExpiry: 144)
        hub.servers["alice"]!.handler.faults.inject(.sendStreamError)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        let first = try await lndNext(payment)
        XCTAssertEqual(first?.status, .inFlight)
        let broken = await lndExpectError { try await lndNext(payment) }
        guard case .paymentStatusUnknown(_, let reason) = broken as? LightningBackendError else {
            return XCTFail("expected paymentStatusUnknown, got \(String(describing: broken))")
        }
        XCTAssertTrue(reason.contains("routerrpc server shutting down"), reason)

        // A second send is refused (409, AlreadyExists): the node has it; track it.
        let again = await lndExpectError {
            for try await _ in alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0, timeoutSeconds: 60) {}
        }
        XCTAssertEqual((again as? LightningBackendError)?.isAlreadyExists, true, "\(String(describing: again))")

        let tracked = LNDIterator(alice.trackPayment(paymentHash: hash))
        let now = try await lndNext(tracked)
        XCTAssertEqual(now?.status, .inFlight, "still held by the payee")
        XCTAssertEqual(now?.paymentHash, hash)
        try await bob.settleInvoice(preimage: secret)
        let done = try await lndNext(tracked)
        XCTAssertEqual(done?.status, .succeeded(preimage: secret))
        XCTAssertEqual(done?.amountMsat, Self.amount)
        let end = try await lndNext(tracked)
        XCTAssertNil(end)
        let balance = try await alice.channelBalance()
        XCTAssertEqual(balance, FunderCommitment.localBalance(Self.payerBalance - Self.amount - Self.fee), "paid once")
        await hub.shutDown(alice, bob)
    }

    /// An LND restart cuts every open stream with the shutdown line; the payment and the
    /// held HTLC stay, and tracking the hash afterwards finds it in flight.
    func testARestartEndsOpenStreamsButNotThePayment() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let hash = SHA256.hash(preimage(0x5e))
        let payment = try await payHeldInvoice(from: alice, to: bob, hash: hash, memo: "swap 5")
        let tracked = LNDIterator(alice.trackPayment(paymentHash: hash))
        _ = try await lndNext(tracked)
        XCTAssertEqual(hub.servers["alice"]!.handler.faults.openStreams, 2)
        hub.servers["alice"]!.handler.faults.inject(.restart)
        for stream in [payment, tracked] {
            let cut = await lndExpectError { try await lndNext(stream) }
            guard case .paymentStatusUnknown = cut as? LightningBackendError else {
                return XCTFail("expected paymentStatusUnknown, got \(String(describing: cut))")
            }
        }
        let held = try await alice.paymentStatus(paymentHash: hash)
        XCTAssertEqual(held, .inFlight)
        let invoice = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(invoice.state, .accepted)
        await hub.shutDown(alice, bob)
    }

    /// LND keeps a subscription to an invoice it does not know open and silent (the
    /// `silent_unknown_invoice` fault): the client waits one request's time for the first
    /// update, then looks the invoice up and ends with LND's NotFound, instead of waiting
    /// for ever.
    func testASilentSubscriptionToAnUnknownInvoiceEndsWithTheLookupsNotFound() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        hub.servers["bob"]!.handler.faults.inject(.silentUnknownInvoice)
        var configuration = hub.configuration("bob")
        configuration.requestTimeoutMilliseconds = 500
        let bob = try await LNDRESTClient.connect(configuration: configuration, sleeper: hub.loop.sleeper,
                                                  connector: hub.connector)
        let updates = LNDIterator(bob.subscribeInvoice(paymentHash: SHA256.hash(preimage(0x5f))))
        let started = ContinuousClock.now
        let error = await lndExpectError { try await lndNext(updates, seconds: 5) }
        XCTAssertEqual((error as? LightningBackendError)?.isNotFound, true, "\(String(describing: error))")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(450), "the silent stream was waited for")
        await hub.shutDown(bob)
    }

    /// A hold invoice cancelled after the payment's timeout fails in LND with TIMEOUT: the
    /// words say the money came back, not that no route was found.
    func testTheTimeoutReasonSaysWhatItMeans() {
        let text = PaymentUpdate.FailureReason(lndName: "FAILURE_REASON_TIMEOUT").description
        XCTAssertFalse(text.contains("before a route was found"), text)
        XCTAssertTrue(text.contains("cancelled a held payment"), text)
    }

    /// End to end: the payee cancels a held payment 61 s after a 60 s payment was sent.
    /// LND (and the hub) fail it with TIMEOUT, and the client's words say the money came
    /// back from a cancelled hold, not that no route was found; within the timeout the
    /// same cancel is the payee's refusal.
    func testAHoldCancelledAfterThePaymentTimeoutFailsWithTimeoutWordedAsWhatHappened() async throws {
        for (wait, expected) in [(UInt64(61), PaymentUpdate.FailureReason.timeout), (30, .incorrectPaymentDetails)] {
            let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
            let alice = try await hub.client("alice")
            let bob = try await hub.client("bob")
            let hash = SHA256.hash(preimage(0x57))
            let payment = try await payHeldInvoice(from: alice, to: bob, hash: hash, memo: "")
            hub.world.advanceTime(by: wait)
            try await bob.cancelInvoice(paymentHash: hash)
            let failed = try await lndNext(payment)
            XCTAssertEqual(failed?.status, .failed(expected), "cancelled after \(wait) s")
            XCTAssertEqual(failed?.attempts.map(\.status), [.failed])
            XCTAssertNil(failed?.lockedUntilHeight, "nothing is held any more")
            let balance = try await alice.channelBalance()
            XCTAssertEqual(balance, FunderCommitment.localBalance(Self.payerBalance))
            await hub.shutDown(alice, bob)
        }
        // Each reason says what happened, and no two say the same.
        let reasons: [PaymentUpdate.FailureReason] = [.timeout, .noRoute, .error, .incorrectPaymentDetails,
                                                      .insufficientBalance, .canceled]
        XCTAssertEqual(Set(reasons.map(\.description)).count, reasons.count)
        XCTAssertTrue(PaymentUpdate.FailureReason.timeout.description.contains("cancelled a held payment"))
        XCTAssertTrue(PaymentUpdate.FailureReason.incorrectPaymentDetails.description.contains("payee refused"))
        XCTAssertFalse(PaymentUpdate.FailureReason.canceled.description.contains("route"))
        XCTAssertTrue(PaymentUpdate.FailureReason.canceled.description.contains("paying node"),
                      PaymentUpdate.FailureReason.canceled.description)
    }

    /// What the client may send is the balance above the channel reserve (ListChannels):
    /// exactly that pays, and one msat less in the channel makes LND refuse the payment
    /// with FAILURE_REASON_INSUFFICIENT_BALANCE although `channelBalance` covers it.
    func testSpendableBalanceIsWhatLNDLetsThroughAboveTheReserve() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let whole = try await alice.spendableBalance()
        XCTAssertEqual(whole, FunderCommitment.spendable(Self.payerBalance, reserveMsat: 100_000_000),
                       "1% of the 10,000,000 sat channel stays, with the anchors and the fee buffer")
        let bobSpendable = try await bob.spendableBalance()
        XCTAssertEqual(bobSpendable, 0, "an empty channel sends nothing")

        // 259,763 sat of capacity keeps 2,597 sat of reserve, 660 of anchors and a 6,480 sat
        // fee buffer: what is left is exactly amount + fee.
        let exact: UInt64 = 259_763_000
        for (balance, paid) in [(exact - 1, false), (exact, true)] {
            try hub.network.setBalance(node: "alice", balanceMsat: balance)
            let spendable = try await alice.spendableBalance()
            let local = try await alice.channelBalance()
            XCTAssertEqual(local, FunderCommitment.localBalance(balance))
            XCTAssertEqual(spendable, paid ? Self.amount + Self.fee : Self.amount + Self.fee - 1_000,
                           "LND reports whole sats")
            let hash = SHA256.hash(preimage(paid ? 0x55 : 0x54))
            let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: "",
                                                       expirySeconds: 600, cltvExpiry: 144)
            let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                       timeoutSeconds: 60))
            var last = try await lndNext(payment)
            if last?.status == .inFlight { last = try await lndNext(payment) }
            XCTAssertEqual(last?.status, paid ? .inFlight : .failed(.insufficientBalance), "balance \(balance) msat")
        }
        let left = try await alice.spendableBalance()
        XCTAssertEqual(left, 0, "all but the reserve is held")
        await hub.shutDown(alice, bob)
    }

    /// The route costs 26 sat; a 25 sat limit finds no route, and nothing moves.
    func testPaymentOverItsFeeLimitFailsCleanly() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let hash = SHA256.hash(preimage(0x53))
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: "",
                                                   expirySeconds: 600, cltvExpiry: 144)
        var updates: [PaymentUpdate] = []
        try await within(seconds: 10) {
            var seen: [PaymentUpdate] = []
            for try await update in alice.payInvoice(paymentRequest: request, feeLimitSat: 25, cltvLimit: 0,
                                                     timeoutSeconds: 60) {
                seen.append(update)
            }
            return seen
        }.forEach { updates.append($0) }
        XCTAssertEqual(updates.map(\.status), [.inFlight, .failed(.noRoute)])
        XCTAssertEqual(updates.last.map { "\($0.status)" }, "failed(no route within the fee and CLTV limits)")
        let balance = try await alice.channelBalance()
        XCTAssertEqual(balance, FunderCommitment.localBalance(Self.payerBalance))
        let invoice = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(invoice.state, .open)
        await hub.shutDown(alice, bob)
    }

    /// An accepted HTLC the chain brings within 12 blocks of expiry is cancelled by the
    /// payee's node, and the payer's stream reports the failure.
    func testHeldHTLCNearExpiryIsCancelledAndRefunded() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let hash = SHA256.hash(preimage(0x54))
        let payment = try await payHeldInvoice(from: alice, to: bob, hash: hash, memo: "", cltvExpiry: 40)
        let expiry = try await within(seconds: 10) {
            while true {
                let invoice = try await bob.lookupInvoice(paymentHash: hash)
                if let expiry = invoice.earliestHeldExpiry { return expiry }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
        XCTAssertEqual(expiry, SimEnvironment.startHeight + 40 + 3, "the payer's tip + final delta + LND's BlockPadding")
        hub.world.mine(to: expiry - 12)
        let failed = try await lndNext(payment)
        XCTAssertEqual(failed?.status, .failed(.incorrectPaymentDetails))
        let balance = try await alice.channelBalance()
        XCTAssertEqual(balance, FunderCommitment.localBalance(Self.payerBalance))
        let info = try await bob.info()
        XCTAssertEqual(info.blockHeight, expiry - 12)
        await hub.shutDown(alice, bob)
    }

    func testRefusalsBeforeAPaymentStartsAreLNDErrors() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("bob", 0)])
        let alice = try await hub.client("alice")
        let bob = try await hub.client("bob")
        let hash = SHA256.hash(preimage(0x55))
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: "",
                                                   expirySeconds: 600, cltvExpiry: 144)
        let first = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                 timeoutSeconds: 60))
        _ = try await lndNext(first)

        // A second payment for a hash in flight: routerrpc's AlreadyExists (HTTP 409).
        let again = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                 timeoutSeconds: 60))
        let error = await lndExpectError { try await lndNext(again) }
        XCTAssertEqual(error as? LightningBackendError,
                       .lnd(code: 6, message: "payment is in transition", httpStatus: 409))

        // Paying one's own invoice is refused too (code 2, HTTP 500).
        let selfPay = LNDIterator(bob.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                 timeoutSeconds: 60))
        let selfError = await lndExpectError { try await lndNext(selfPay) }
        XCTAssertEqual(selfError as? LightningBackendError,
                       .lnd(code: 2, message: "self-payments not allowed", httpStatus: 500))

        // An unknown invoice is NotFound for lookup, and ends a subscription at once.
        let unknown = SHA256.hash(preimage(0x99))
        let lookupError = await lndExpectError { try await bob.lookupInvoice(paymentHash: unknown) }
        XCTAssertEqual(lookupError as? LightningBackendError,
                       .lnd(code: 5, message: "unable to locate invoice", httpStatus: 404))
        XCTAssertEqual((lookupError as? LightningBackendError)?.isNotFound, true)
        let subscription = LNDIterator(bob.subscribeInvoice(paymentHash: unknown))
        let subscribeError = await lndExpectError { try await lndNext(subscription) }
        XCTAssertEqual((subscribeError as? LightningBackendError)?.isNotFound, true)

        // A hash of the wrong length never leaves the client.
        let shortError = await lndExpectError { try await bob.cancelInvoice(paymentHash: [1, 2, 3]) }
        XCTAssertEqual(shortError as? LightningBackendError, .invalidArgument("a payment hash is 32 bytes, not 3"))
        await hub.shutDown(alice, bob)
    }

    /// Bob's hold invoice for `hash`, and Alice's payment of it read past INITIATED up to
    /// IN_FLIGHT (LND's order), for the tests that go on from a held payment.
    private func payHeldInvoice(from alice: LNDRESTClient, to bob: LNDRESTClient, hash: [UInt8], memo: String,
                                cltvExpiry: UInt64 = 144) async throws -> LNDIterator<PaymentUpdate> {
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: memo,
                                                   expirySeconds: 600, cltvExpiry: cltvExpiry)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        let initiated = try await lndNext(payment)
        XCTAssertEqual(initiated?.status, .inFlight, "INITIATED reads as in flight")
        let afterInitiated = try await lndNext(payment)
        XCTAssertEqual(afterInitiated?.status, .inFlight, "IN_FLIGHT follows INITIATED")
        return payment
    }
}
