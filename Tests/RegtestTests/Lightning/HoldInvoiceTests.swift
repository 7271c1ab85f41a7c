import Bitcoin
import Lightning
import Regtest
import TestSupport
import XCTest

/// A hold invoice's whole life: OPEN -> ACCEPTED -> SETTLED or CANCELED, the held HTLC's
/// expiry height, the refusals on the way, and cancellation as the HTLC nears expiry.
final class HoldInvoiceTests: XCTestCase {
    static let amountMsat: UInt64 = 50_000_000
    /// 1000 msat base + 50,000,000 × 100 / 10^6.
    static let feeMsat: UInt64 = 6_000
    /// The DESIGN's final delta for a 144-block swap: 144 + 18 + 24 + 30.
    static let finalCLTV: UInt64 = 216
    static let payerFunds: UInt64 = 1_000_000_000

    private var world: SimWorld!
    private var network: LightningNetwork { world.network }
    private let secret = preimage(0x42)

    override func setUp() async throws {
        world = SimWorld()
        try network.addNode(name: "alice", balanceMsat: Self.payerFunds)
        try network.addNode(name: "bob", balanceMsat: 0)
    }

    private func addHoldInvoice() throws -> AddedInvoice {
        try network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(secret), amountMsat: Self.amountMsat,
                                   memo: "swap", expirySeconds: 600, cltvExpiry: Self.finalCLTV)
    }

    private func pay(_ request: String) throws -> AsyncStream<SimulatedPayment>.AsyncIterator {
        try network.sendPayment(from: "alice", paymentRequest: request, feeLimitMsat: 10_000,
                                timeoutSeconds: 60).makeAsyncIterator()
    }

    private func assertConserved(file: StaticString = #filePath, line: UInt = #line) {
        let balances = network.balances()
        XCTAssertTrue(balances.isConserved, "\(balances)", file: file, line: line)
        XCTAssertEqual(balances.fundedMsat, Self.payerFunds, file: file, line: line)
    }

    func testSettledHoldInvoiceCreditsPayeeAndGivesPayerThePreimage() async throws {
        let added = try addHoldInvoice()
        var invoiceUpdates = try network.subscribeInvoice(node: "bob", paymentHash: added.paymentHash).makeAsyncIterator()
        let open = await invoiceUpdates.next()
        XCTAssertEqual(open?.state, .open)
        XCTAssertNil(open?.preimage)
        XCTAssertEqual(open?.isHold, true)

        var payment = try pay(added.paymentRequest)
        let initiated = await payment.next()
        XCTAssertEqual(initiated?.status, .initiated, "INITIATED comes first, as in LND 0.18+")
        let inFlight = await payment.next()
        XCTAssertEqual(inFlight?.status, .inFlight)
        XCTAssertEqual(inFlight?.valueMsat, Self.amountMsat)

        let accepted = await invoiceUpdates.next()
        XCTAssertEqual(accepted?.state, .accepted)
        let htlc = try XCTUnwrap(accepted?.htlcs.first)
        XCTAssertEqual(accepted?.htlcs.count, 1)
        XCTAssertEqual(htlc.state, .accepted)
        XCTAssertEqual(htlc.amountMsat, Self.amountMsat)
        XCTAssertEqual(htlc.acceptHeight, SimEnvironment.startHeight)
        // LND's arithmetic: the payer's tip + final CLTV delta + BlockPadding (3). The
        // route's own delta lengthens the payer's HTLC, never the one the payee holds.
        XCTAssertEqual(htlc.expiryHeight, SimEnvironment.startHeight + Int(Self.finalCLTV) + 3)
        XCTAssertEqual(htlc.expiryHeight, 319)

        var balances = network.balances()
        XCTAssertEqual(balances.nodes["alice"], Self.payerFunds - Self.amountMsat - Self.feeMsat)
        XCTAssertEqual(balances.nodes["bob"], 0)
        XCTAssertEqual(balances.inFlightMsat, Self.amountMsat + Self.feeMsat)
        assertConserved()
        XCTAssertEqual(try network.payment(node: "alice", paymentHash: added.paymentHash).status, .inFlight)

        world.advanceTime(by: 30)
        try network.settleInvoice(node: "bob", preimage: secret)

        let succeeded = await payment.next()
        XCTAssertEqual(succeeded?.status, .succeeded)
        XCTAssertEqual(succeeded?.preimage, secret)
        XCTAssertEqual(succeeded?.feeMsat, Self.feeMsat)
        XCTAssertEqual(succeeded?.failureReason, PaymentFailureReason.none)
        let paymentEnd = await payment.next()
        XCTAssertNil(paymentEnd, "the send stream ends at the final state")

        let settled = await invoiceUpdates.next()
        XCTAssertEqual(settled?.state, .settled)
        XCTAssertEqual(settled?.preimage, secret)
        XCTAssertEqual(settled?.amountPaidMsat, Self.amountMsat)
        XCTAssertEqual(settled?.settleDate, SimEnvironment.startTime + 30)
        XCTAssertEqual(settled?.settleIndex, 1)
        XCTAssertEqual(settled?.htlcs.first?.state, .settled)
        XCTAssertEqual(settled?.htlcs.first?.resolveTime, SimEnvironment.startTime + 30)
        let invoiceEnd = await invoiceUpdates.next()
        XCTAssertNil(invoiceEnd)

        balances = network.balances()
        XCTAssertEqual(balances.nodes["alice"], Self.payerFunds - Self.amountMsat - Self.feeMsat)
        XCTAssertEqual(balances.nodes["bob"], Self.amountMsat)
        XCTAssertEqual(balances.inFlightMsat, 0)
        XCTAssertEqual(balances.feesCollectedMsat, Self.feeMsat)
        assertConserved()

        // Settled is final: no second settle, no cancel, no second payment.
        XCTAssertThrowsError(try network.settleInvoice(node: "bob", preimage: secret)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceAlreadySettled)
        }
        XCTAssertThrowsError(try network.cancelInvoice(node: "bob", paymentHash: added.paymentHash)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceAlreadySettled)
        }
        XCTAssertThrowsError(try pay(added.paymentRequest)) {
            XCTAssertEqual($0 as? LightningSimError, .alreadyPaid)
            XCTAssertEqual(($0 as? LightningSimError)?.description, "invoice is already paid")
        }
    }

    func testCancelledHoldInvoiceRefundsPayerIncludingFee() async throws {
        let added = try addHoldInvoice()
        let payment = try network.sendPayment(from: "alice", paymentRequest: added.paymentRequest,
                                              feeLimitMsat: 10_000, timeoutSeconds: 60)
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash).state, .accepted)
        XCTAssertEqual(network.balances().inFlightMsat, Self.amountMsat + Self.feeMsat)

        try network.cancelInvoice(node: "bob", paymentHash: added.paymentHash)

        let updates = await collect(payment)
        XCTAssertEqual(updates.map(\.status), [.initiated, .inFlight, .failed])
        XCTAssertEqual(updates.last?.failureReason, .incorrectPaymentDetails)
        XCTAssertEqual(updates.last?.failureReason.lndName, "FAILURE_REASON_INCORRECT_PAYMENT_DETAILS")
        XCTAssertEqual(updates.last?.failureDetail, .canceledByPayee)
        XCTAssertNil(updates.last?.preimage)

        let invoice = try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash)
        XCTAssertEqual(invoice.state, .canceled)
        XCTAssertEqual(invoice.htlcs.map(\.state), [.canceled])
        XCTAssertEqual(invoice.amountPaidMsat, 0)

        let balances = network.balances()
        XCTAssertEqual(balances.nodes["alice"], Self.payerFunds, "amount and fee both come back")
        XCTAssertEqual(balances.nodes["bob"], 0)
        XCTAssertEqual(balances.inFlightMsat, 0)
        XCTAssertEqual(balances.feesCollectedMsat, 0)
        assertConserved()

        // Cancel is idempotent as in LND; settle after cancel is refused.
        XCTAssertNoThrow(try network.cancelInvoice(node: "bob", paymentHash: added.paymentHash))
        XCTAssertThrowsError(try network.settleInvoice(node: "bob", preimage: secret)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceAlreadyCanceled)
        }
    }

    func testOpenHoldInvoiceCanBeCancelledAndThenNotPaid() async throws {
        let added = try addHoldInvoice()
        try network.cancelInvoice(node: "bob", paymentHash: added.paymentHash)
        let updates = await collect(try network.sendPayment(from: "alice", paymentRequest: added.paymentRequest,
                                                             feeLimitMsat: 10_000, timeoutSeconds: 60))
        XCTAssertEqual(updates.map(\.status), [.initiated, .inFlight, .failed])
        XCTAssertEqual(updates.last?.failureReason, .incorrectPaymentDetails)
        XCTAssertEqual(updates.last?.failureDetail, .invoiceNotOpen(.canceled))
        XCTAssertEqual(updates.last?.feeMsat, 0)
        XCTAssertEqual(network.balances().nodes["alice"], Self.payerFunds)
        assertConserved()
    }

    func testSettleOfOpenInvoiceIsRefused() throws {
        _ = try addHoldInvoice()
        XCTAssertThrowsError(try network.settleInvoice(node: "bob", preimage: secret)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceStillOpen)
            XCTAssertEqual(($0 as? LightningSimError)?.description, "invoice still open")
        }
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: SHA256.hash(secret)).state, .open)
    }

    func testWrongPreimageIsRefusedAndMovesNothing() throws {
        let added = try addHoldInvoice()
        _ = try pay(added.paymentRequest)
        let before = network.balances()

        // LND finds the invoice by the preimage's hash: a wrong preimage finds none.
        XCTAssertThrowsError(try network.settleInvoice(node: "bob", preimage: preimage(0x43))) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceNotFound)
            XCTAssertEqual(($0 as? LightningSimError)?.description, "unable to locate invoice")
        }
        XCTAssertThrowsError(try network.settleInvoice(node: "bob", preimage: Array(secret.dropLast()))) {
            XCTAssertEqual($0 as? LightningSimError, .invalidPreimageLength(31))
        }
        // Nor can another node settle it.
        XCTAssertThrowsError(try network.settleInvoice(node: "alice", preimage: secret)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceNotFound)
        }
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash).state, .accepted)
        XCTAssertEqual(network.balances(), before)
        XCTAssertEqual(try network.payment(node: "alice", paymentHash: added.paymentHash).status, .inFlight)
    }

    func testAcceptedHTLCNearExpiryIsCancelledAndPayerRefunded() async throws {
        let added = try addHoldInvoice()
        var invoiceUpdates = try network.subscribeInvoice(node: "bob", paymentHash: added.paymentHash).makeAsyncIterator()
        _ = await invoiceUpdates.next()
        let payment = try network.sendPayment(from: "alice", paymentRequest: added.paymentRequest,
                                              feeLimitMsat: 10_000, timeoutSeconds: 60)
        _ = await invoiceUpdates.next()
        let expiry = try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash).htlcs[0].expiryHeight
        XCTAssertEqual(expiry, 319)

        // LND's rule with holdexpirydelta 12: cancel once height + 12 >= expiry.
        world.mine(to: expiry - 13)
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash).state, .accepted)
        XCTAssertEqual(network.balances().inFlightMsat, Self.amountMsat + Self.feeMsat)

        world.mine(to: expiry - 12)
        let canceled = await invoiceUpdates.next()
        XCTAssertEqual(canceled?.state, .canceled)
        XCTAssertEqual(canceled?.htlcs.first?.state, .canceled)

        let updates = await collect(payment)
        XCTAssertEqual(updates.map(\.status), [.initiated, .inFlight, .failed])
        XCTAssertEqual(updates.last?.failureReason, .incorrectPaymentDetails)
        XCTAssertEqual(updates.last?.failureDetail, .heldHTLCNearExpiry(expiryHeight: 319, height: 307))
        XCTAssertEqual(network.balances().nodes["alice"], Self.payerFunds)
        XCTAssertEqual(network.balances().inFlightMsat, 0)
        assertConserved()

        // Too late for the payee: the preimage no longer buys the payment.
        XCTAssertThrowsError(try network.settleInvoice(node: "bob", preimage: secret)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceAlreadyCanceled)
        }
    }

    /// The payee's failure of a held HTLC carries the height at which the HTLC was
    /// accepted, not the height at which it was cancelled: LND's link fails a hold
    /// invoice's HTLC with `NewFailIncorrectDetails(amount, resolution.AcceptHeight)`
    /// (htlcswitch/link.go getResolutionFailure), whether the payee cancelled it or its
    /// expiry watcher did.
    func testAHeldHTLCsFailureReportsItsAcceptHeightAsLNDDoes() async throws {
        for byWatcher in [false, true] {
            world = SimWorld()
            try network.addNode(name: "alice", balanceMsat: Self.payerFunds)
            try network.addNode(name: "bob", balanceMsat: 0)
            let added = try addHoldInvoice()
            let payment = try network.sendPayment(from: "alice", paymentRequest: added.paymentRequest,
                                                  feeLimitMsat: 10_000, timeoutSeconds: 60)
            let accepted = try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash)
            XCTAssertEqual(accepted.htlcs.first?.acceptHeight, SimEnvironment.startHeight)
            if byWatcher {
                world.mine(to: SimEnvironment.startHeight + Int(Self.finalCLTV) + 3 - 12)
            } else {
                world.mine(to: SimEnvironment.startHeight + 10)
                try network.cancelInvoice(node: "bob", paymentHash: added.paymentHash)
            }
            let failed = await collect(payment).last
            XCTAssertEqual(failed?.status, .failed)
            XCTAssertEqual(failed?.htlcs.last?.failure?.code, "INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS")
            XCTAssertEqual(failed?.htlcs.last?.failure?.height, SimEnvironment.startHeight,
                           byWatcher ? "cancelled by the expiry watcher" : "cancelled by the payee")
            assertConserved()
        }
    }

    func testHTLCArrivingInsideTheHoldDeltaIsCancelledAtOnce() async throws {
        // A final delta of 18 puts the HTLC's expiry at tip + 18 + 3 (LND's BlockPadding);
        // with a hold delta of 21 LND's watcher cancels it on arrival.
        let world = SimWorld(policy: RoutingPolicy(holdExpiryDelta: 21))
        try world.network.addNode(name: "alice", balanceMsat: Self.payerFunds)
        try world.network.addNode(name: "bob", balanceMsat: 0)
        let added = try world.network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(secret),
                                                     amountMsat: Self.amountMsat, cltvExpiry: 18)
        let updates = await collect(try world.network.sendPayment(from: "alice", paymentRequest: added.paymentRequest,
                                                                   feeLimitMsat: 10_000, timeoutSeconds: 60))
        XCTAssertEqual(updates.map(\.status), [.initiated, .inFlight, .failed])
        XCTAssertEqual(updates.last?.failureDetail, .heldHTLCNearExpiry(expiryHeight: 121, height: 100))
        XCTAssertEqual(world.network.balances().nodes["alice"], Self.payerFunds)
        XCTAssertTrue(world.network.balances().isConserved)
    }

    /// LND gives up on a payment `timeout_seconds` after it was sent; a held HTLC that
    /// comes back after that fails the payment with FAILURE_REASON_TIMEOUT, however the
    /// payee cancelled it (issue 15). Within the timeout it is the payee's refusal.
    func testAHeldPaymentCancelledAfterItsTimeoutFailsWithTimeout() async throws {
        for (wait, reason) in [(UInt64(59), PaymentFailureReason.incorrectPaymentDetails), (60, .timeout)] {
            let world = SimWorld()
            try world.network.addNode(name: "alice", balanceMsat: Self.payerFunds)
            try world.network.addNode(name: "bob", balanceMsat: 0)
            let added = try world.network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(secret),
                                                         amountMsat: Self.amountMsat, cltvExpiry: Self.finalCLTV)
            let payment = try world.network.sendPayment(from: "alice", paymentRequest: added.paymentRequest,
                                                        feeLimitMsat: 10_000, timeoutSeconds: 60)
            world.advanceTime(by: wait)
            try world.network.cancelInvoice(node: "bob", paymentHash: added.paymentHash)
            let updates = await collect(payment)
            XCTAssertEqual(updates.last?.status, .failed)
            XCTAssertEqual(updates.last?.failureReason, reason, "cancelled \(wait) s after a 60 s payment")
            XCTAssertEqual(updates.last?.failureDetail, .canceledByPayee)
            XCTAssertEqual(updates.last?.htlcs.map(\.status), [.failed])
            XCTAssertEqual(world.network.balances().nodes["alice"], Self.payerFunds)
        }
    }

    func testHoldInvoiceRefusals() throws {
        _ = try addHoldInvoice()
        XCTAssertThrowsError(try addHoldInvoice()) {
            XCTAssertEqual($0 as? LightningSimError, .duplicateInvoice)
            XCTAssertEqual(($0 as? LightningSimError)?.description, "invoice with payment hash already exists")
        }
        XCTAssertThrowsError(try network.addHoldInvoice(node: "bob", paymentHash: [1, 2, 3], amountMsat: 1_000)) {
            XCTAssertEqual($0 as? LightningSimError, .invalidHashLength(3))
        }
        XCTAssertThrowsError(try network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(preimage(9)),
                                                        amountMsat: 1_000, cltvExpiry: 17)) {
            XCTAssertEqual($0 as? LightningSimError, .cltvExpiryTooSmall(17))
        }
        XCTAssertThrowsError(try network.addHoldInvoice(node: "carol", paymentHash: SHA256.hash(preimage(9)),
                                                        amountMsat: 1_000)) {
            XCTAssertEqual($0 as? LightningSimError, .unknownNode("carol"))
        }
        XCTAssertThrowsError(try network.lookupInvoice(node: "bob", paymentHash: SHA256.hash(preimage(9)))) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceNotFound)
        }
        // cltvExpiry 0 takes LND's default of 80 blocks.
        let byDefault = try network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(preimage(9)), amountMsat: 1_000)
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: byDefault.paymentHash).cltvExpiry, 80)
        XCTAssertEqual(try InvoiceDecoder.decode(byDefault.paymentRequest).minFinalCLTVExpiryDelta, 80)
    }
}
