import Bitcoin
import Lightning
import Regtest
import TestSupport
import XCTest

/// Payments: what is refused before an attempt (thrown, as LND's RPC errors), what
/// fails during it (a FAILED update with LND's reason), and that a failure moves no money.
final class PaymentRuleTests: XCTestCase {
    static let amountMsat: UInt64 = 50_000_000
    static let feeMsat: UInt64 = 6_000
    static let funds: UInt64 = 1_000_000_000

    private var world: SimWorld!
    private var network: LightningNetwork { world.network }

    override func setUp() async throws {
        world = SimWorld()
        try network.addNode(name: "alice", balanceMsat: Self.funds)
        try network.addNode(name: "bob", balanceMsat: 0)
    }

    private func holdInvoice(cltv: UInt64 = 216, amountMsat: UInt64 = amountMsat, expiry: UInt64 = 600) throws -> AddedInvoice {
        try network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(preimage(0x42)), amountMsat: amountMsat,
                                   memo: "swap", expirySeconds: expiry, cltvExpiry: cltv)
    }

    private func send(_ request: String, amountMsat: UInt64 = 0, feeLimitMsat: UInt64 = 10_000,
                      cltvLimit: UInt32 = 0, from payer: String = "alice") async throws -> [SimulatedPayment] {
        let stream = try network.sendPayment(from: payer, paymentRequest: request, amountMsat: amountMsat,
                                             feeLimitMsat: feeLimitMsat, cltvLimit: cltvLimit, timeoutSeconds: 60)
        var updates = [SimulatedPayment]()
        // A hold invoice leaves the stream open at IN_FLIGHT; take what has arrived.
        var iterator = stream.makeAsyncIterator()
        while let update = await iterator.next() {
            updates.append(update)
            if update.status == .inFlight, (try? network.lookupInvoice(node: "bob", paymentHash: update.paymentHash))?.state == .accepted {
                break
            }
        }
        return updates
    }

    private func assertNothingMoved(file: StaticString = #filePath, line: UInt = #line) {
        let balances = network.balances()
        XCTAssertEqual(balances.nodes, ["alice": Self.funds, "bob": 0], file: file, line: line)
        XCTAssertEqual(balances.inFlightMsat, 0, file: file, line: line)
        XCTAssertEqual(balances.feesCollectedMsat, 0, file: file, line: line)
        XCTAssertTrue(balances.isConserved, file: file, line: line)
    }

    func testRoutingFeePolicy() {
        let policy = RoutingPolicy.standard
        XCTAssertEqual(policy.feeMsat(forAmount: 0), 1_000)
        XCTAssertEqual(policy.feeMsat(forAmount: 9_999), 1_000, "100 ppm of 9,999 msat rounds down to 0")
        XCTAssertEqual(policy.feeMsat(forAmount: 10_000), 1_001)
        XCTAssertEqual(policy.feeMsat(forAmount: Self.amountMsat), Self.feeMsat)
        XCTAssertEqual(policy.feeMsat(forAmount: 2_100_000_000_000_000_000), 1_000 + 210_000_000_000_000)
        // The route's total time lock: final delta + BlockPadding 3 + the route's 40.
        XCTAssertEqual(policy.totalCLTVDelta(finalCLTVDelta: 216), 259)
        // What reaches the payee: final delta + BlockPadding only.
        XCTAssertEqual(policy.finalHTLCExpiry(tip: 100, finalCLTVDelta: 216), 319)
    }

    func testPaymentOverFeeLimitFailsWithNoRouteAndMovesNothing() async throws {
        let invoice = try holdInvoice()
        let updates = try await send(invoice.paymentRequest, feeLimitMsat: Self.feeMsat - 1)
        XCTAssertEqual(updates.map(\.status), [.initiated, .failed])
        // LND finds no route within the fee limit: its reason is NO_ROUTE.
        XCTAssertEqual(updates.last?.failureReason, .noRoute)
        XCTAssertEqual(updates.last?.failureReason.lndName, "FAILURE_REASON_NO_ROUTE")
        XCTAssertEqual(updates.last?.failureDetail, .feeLimitExceeded(feeMsat: Self.feeMsat, limitMsat: Self.feeMsat - 1))
        XCTAssertEqual(updates.last?.feeMsat, 0)
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: invoice.paymentHash).state, .open)
        assertNothingMoved()

        // A failed payment may be tried again; at exactly the fee it goes through.
        let retry = try await send(invoice.paymentRequest, feeLimitMsat: Self.feeMsat)
        XCTAssertEqual(retry.map(\.status), [.initiated, .inFlight])
        XCTAssertEqual(try network.payment(node: "alice", paymentHash: invoice.paymentHash).feeMsat, Self.feeMsat)
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: invoice.paymentHash).state, .accepted)
    }

    func testCLTVLimitBelowRouteFailsWithNoRoute() async throws {
        let invoice = try holdInvoice(cltv: 216)
        let updates = try await send(invoice.paymentRequest, cltvLimit: 258)
        XCTAssertEqual(updates.last?.status, .failed)
        XCTAssertEqual(updates.last?.failureReason, .noRoute)
        XCTAssertEqual(updates.last?.failureDetail, .cltvLimitExceeded(totalDelta: 259, limit: 258))
        assertNothingMoved()

        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: invoice.paymentRequest,
                                                     feeLimitMsat: 10_000, cltvLimit: 2017, timeoutSeconds: 60)) {
            XCTAssertEqual(($0 as? LightningSimError)?.description, "total time lock of 2017 exceeds max allowed 2016")
        }

        let atLimit = try await send(invoice.paymentRequest, cltvLimit: 259)
        XCTAssertEqual(atLimit.map(\.status), [.initiated, .inFlight])
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: invoice.paymentHash).htlcs.first?.expiryHeight,
                       world.tip + 216 + 3)
    }

    /// LND's default reserve: 1% of the channel's capacity, never under the 354 sat dust
    /// limit (`DefaultReserve` with `DustLimitUnknownWitness`).
    func testReserveIsOnePercentOfCapacityAtLeastTheDustLimit() throws {
        XCTAssertEqual(try network.node("alice").reserveMsat, 10_000_000, "1% of 1,000,000 sat")
        XCTAssertEqual(try network.node("bob").reserveMsat, 354_000, "an empty channel still keeps the dust limit")
        try network.setBalance(node: "alice", balanceMsat: 35_499_999)
        XCTAssertEqual(try network.node("alice").reserveMsat, 354_000, "1% of 35,499 sat is under the dust limit")
        try network.setBalance(node: "alice", balanceMsat: 2_000_000_999)
        XCTAssertEqual(try network.node("alice").reserveMsat, 20_000_000, "1% of the whole sats")
        // Less the reserve, the anchors (660 sat) and the fee buffer: 2 × 2,500 sat/kw ×
        // (1,124 + 172) wu = 6,480 sat.
        XCTAssertEqual(try network.node("alice").spendableMsat, 2_000_000_999 - 20_000_000 - 660_000 - 6_480_000)
    }

    /// The funder pays its commitment, as in LND's anchor channels: `local_balance` is its
    /// side less the commitment fee (2,500 sat/kw × 1,124 wu = 2,810 sat) and the anchors,
    /// an HTLC adds 172 wu to the commitment, and what it can send keeps the fee buffer
    /// (twice the rate, one HTLC more). A channel the peer opened keeps only the reserve.
    func testTheFunderPaysTheCommitmentAndKeepsAFeeBuffer() async throws {
        let alice = try network.node("alice")
        XCTAssertTrue(alice.isFunder)
        XCTAssertEqual(alice.commitWeight, 1_124)
        XCTAssertEqual(alice.commitFeeMsat, 2_810_000)
        XCTAssertEqual(alice.localBalanceMsat, alice.balanceMsat - 2_810_000 - 660_000)
        XCTAssertEqual(alice.spendableMsat, alice.balanceMsat - alice.reserveMsat - 660_000 - 6_480_000)
        let bob = try network.node("bob")
        XCTAssertFalse(bob.isFunder, "bob's channel was opened with nothing of his")
        XCTAssertEqual(bob.commitFeeMsat, 2_810_000, "the commitment's fee, paid by his peer")
        XCTAssertEqual(bob.localBalanceMsat, bob.balanceMsat)

        let invoice = try holdInvoice()
        let updates = try await send(invoice.paymentRequest)
        XCTAssertEqual(updates.last?.status, .inFlight)
        let paying = try network.node("alice")
        XCTAssertEqual(paying.commitWeight, 1_124 + 172, "the held HTLC has an output on alice's commitment")
        XCTAssertEqual(paying.commitFeeMsat, 3_240_000)
        XCTAssertEqual(paying.spendableMsat, paying.balanceMsat - paying.reserveMsat - 660_000 - 7_340_000)
        XCTAssertEqual(try network.node("bob").commitWeight, 1_124 + 172, "and on bob's")
    }

    /// The reserve, the anchors and the fee buffer are held back from what a funder can send,
    /// as LND's link bandwidth holds them back: one msat short of amount + fee above them
    /// fails with FAILURE_REASON_INSUFFICIENT_BALANCE and moves nothing; exactly enough goes.
    func testInsufficientBalanceCountsTheFeeTheReserveAndTheFeeBuffer() async throws {
        // 57,722,999 msat is 57,722 sat of capacity: a reserve of 577 sat, with the anchors
        // (660 sat) and the buffer (6,480 sat), leaves amount + fee - 1.
        let reserve: UInt64 = 577_000, kept: UInt64 = 660_000 + 6_480_000
        let short = Self.amountMsat + Self.feeMsat + reserve + kept - 1
        try network.setBalance(node: "alice", balanceMsat: short)
        XCTAssertEqual(try network.node("alice").reserveMsat, reserve)
        let invoice = try holdInvoice()
        let updates = try await send(invoice.paymentRequest)
        XCTAssertEqual(updates.last?.status, .failed)
        XCTAssertEqual(updates.last?.failureReason, .insufficientBalance)
        XCTAssertEqual(updates.last?.failureReason.lndName, "FAILURE_REASON_INSUFFICIENT_BALANCE")
        XCTAssertEqual(updates.last?.failureDetail,
                       .insufficientBalance(neededMsat: Self.amountMsat + Self.feeMsat, balanceMsat: short,
                                            spendableMsat: Self.amountMsat + Self.feeMsat - 1))
        XCTAssertEqual(updates.last?.failureDetail?.description,
                       "needs 50006000 msat, can send 50005999 msat (balance 57722999 msat less the channel reserve, "
                       + "and for the channel's funder its anchors and fee buffer)")
        var balances = network.balances()
        XCTAssertEqual(balances.nodes["alice"], short)
        XCTAssertEqual(balances.inFlightMsat, 0)
        XCTAssertTrue(balances.isConserved)

        try network.setBalance(node: "alice", balanceMsat: short + 1)
        XCTAssertEqual(try network.node("alice").reserveMsat, reserve)
        let again = try network.addHoldInvoice(node: "bob", paymentHash: SHA256.hash(preimage(0x43)), amountMsat: Self.amountMsat,
                                               memo: "swap", expirySeconds: 600, cltvExpiry: 216)
        let exact = try await send(again.paymentRequest)
        XCTAssertEqual(exact.last?.status, .inFlight)
        balances = network.balances()
        XCTAssertEqual(balances.nodes["alice"], reserve + kept, "all but the reserve, the anchors and the buffer is in flight")
        XCTAssertEqual(try network.node("alice").spendableMsat, 0)
        XCTAssertTrue(balances.isConserved)
    }

    func testOfflinePayeeHasNoRouteUntilBackOnline() async throws {
        let invoice = try holdInvoice()
        try network.setOnline(node: "bob", false)
        XCTAssertFalse(try network.node("bob").isOnline)
        let updates = try await send(invoice.paymentRequest)
        XCTAssertEqual(updates.last?.failureReason, .noRoute)
        XCTAssertEqual(updates.last?.failureDetail, .payeeOffline)
        assertNothingMoved()

        try network.setOnline(node: "bob", true)
        let retry = try await send(invoice.paymentRequest)
        XCTAssertEqual(retry.map(\.status), [.initiated, .inFlight])
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: invoice.paymentHash).state, .accepted)
    }

    func testOfflinePayerAndUnknownPayeeHaveNoRoute() async throws {
        let invoice = try holdInvoice()
        try network.setOnline(node: "alice", false)
        let offline = try await send(invoice.paymentRequest)
        XCTAssertEqual(offline.last?.failureDetail, .payerOffline)
        try network.setOnline(node: "alice", true)

        // An invoice signed by a key no node of the network has.
        let stranger = try InvoiceEncoder(currency: .regtest, amountMsat: 1_000_000, timestamp: world.now,
                                          paymentHash: SHA256.hash(preimage(7)), paymentSecret: preimage(8),
                                          description: .text("elsewhere")).sign(with: PrivateKey(preimage(9)))
        let unknown = try await send(stranger.string)
        XCTAssertEqual(unknown.last?.failureReason, .noRoute)
        XCTAssertEqual(unknown.last?.failureDetail, .unknownDestination)
        assertNothingMoved()
    }

    func testExpiredInvoiceIsRefusedAndCancelled() throws {
        let invoice = try holdInvoice(expiry: 600)
        world.advanceTime(by: 600)
        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: invoice.paymentRequest,
                                                     feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual($0 as? LightningSimError, .invoiceExpired(validUntil: SimEnvironment.startTime + 600))
            XCTAssertTrue(($0 as? LightningSimError)?.description.hasPrefix("invoice expired. Valid until") ?? false)
        }
        XCTAssertThrowsError(try network.payment(node: "alice", paymentHash: invoice.paymentHash)) {
            XCTAssertEqual($0 as? LightningSimError, .paymentNotFound, "a refusal records no payment")
        }
        // The payee's expiry watcher cancelled the unpaid invoice.
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: invoice.paymentHash).state, .canceled)
        assertNothingMoved()
    }

    func testExpiryReachesInvoiceSubscribersThroughTheHubTimer() async throws {
        let invoice = try holdInvoice(expiry: 600)
        let updates = try network.subscribeInvoice(node: "bob", paymentHash: invoice.paymentHash)
        world.advanceTime(by: 599)
        network.expireInvoices()
        world.advanceTime(by: 1)
        network.expireInvoices()
        let states = await collect(updates).map(\.state)
        XCTAssertEqual(states, [.open, .canceled])
    }

    func testPlainInvoiceSettlesAtOnce() async throws {
        let added = try network.addInvoice(node: "bob", amountMsat: Self.amountMsat, memo: "coffee")
        let updates = try await send(added.paymentRequest)
        XCTAssertEqual(updates.map(\.status), [.initiated, .inFlight, .succeeded])
        let secret = try XCTUnwrap(updates.last?.preimage)
        XCTAssertEqual(SHA256.hash(secret), added.paymentHash)
        XCTAssertEqual(updates.last?.feeMsat, Self.feeMsat)

        let invoice = try network.lookupInvoice(node: "bob", paymentHash: added.paymentHash)
        XCTAssertEqual(invoice.state, .settled)
        XCTAssertFalse(invoice.isHold)
        XCTAssertEqual(invoice.preimage, secret)
        XCTAssertEqual(invoice.amountPaidMsat, Self.amountMsat)
        XCTAssertEqual(invoice.htlcs.map(\.state), [.settled])

        let balances = network.balances()
        XCTAssertEqual(balances.nodes, ["alice": Self.funds - Self.amountMsat - Self.feeMsat, "bob": Self.amountMsat])
        XCTAssertEqual(balances.feesCollectedMsat, Self.feeMsat)
        XCTAssertEqual(balances.inFlightMsat, 0)
        XCTAssertTrue(balances.isConserved)

        // A given preimage is used as is; each derived one differs.
        let chosen = try network.addInvoice(node: "bob", amountMsat: 1_000, preimage: preimage(0x77))
        XCTAssertEqual(chosen.paymentHash, SHA256.hash(preimage(0x77)))
        let other = try network.addInvoice(node: "bob", amountMsat: 1_000)
        XCTAssertNotEqual(other.paymentHash, added.paymentHash)
    }

    func testAmountRules() async throws {
        let anyAmount = try network.addInvoice(node: "bob", amountMsat: 0, memo: "tip jar")
        XCTAssertNil(try InvoiceDecoder.decode(anyAmount.paymentRequest).amountMsat)
        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: anyAmount.paymentRequest,
                                                     feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual($0 as? LightningSimError, .amountRequired)
        }
        let fixed = try holdInvoice()
        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: fixed.paymentRequest,
                                                     amountMsat: 1_000, feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual($0 as? LightningSimError, .amountNotAllowed)
        }
        let paid = try await send(anyAmount.paymentRequest, amountMsat: 2_000_000)
        XCTAssertEqual(paid.last?.status, .succeeded)
        XCTAssertEqual(paid.last?.valueMsat, 2_000_000)
        XCTAssertEqual(try network.lookupInvoice(node: "bob", paymentHash: anyAmount.paymentHash).amountPaidMsat, 2_000_000)
        XCTAssertEqual(network.balances().nodes["bob"], 2_000_000)
    }

    func testRefusalsBeforeAnyAttempt() async throws {
        let invoice = try holdInvoice()
        XCTAssertThrowsError(try network.sendPayment(from: "bob", paymentRequest: invoice.paymentRequest,
                                                     feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual($0 as? LightningSimError, .selfPayment)
        }
        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: invoice.paymentRequest,
                                                     feeLimitMsat: 10_000, timeoutSeconds: 0)) {
            XCTAssertEqual(($0 as? LightningSimError)?.description, "timeout_seconds must be specified")
        }
        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: "lnbcrt1notaninvoice",
                                                     feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            guard case .invalidPaymentRequest = $0 as? LightningSimError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try network.sendPayment(from: "zed", paymentRequest: invoice.paymentRequest,
                                                     feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual($0 as? LightningSimError, .unknownNode("zed"))
        }
        _ = try await send(invoice.paymentRequest)
        XCTAssertThrowsError(try network.sendPayment(from: "alice", paymentRequest: invoice.paymentRequest,
                                                     feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual(($0 as? LightningSimError)?.description, "payment is in transition")
        }
        XCTAssertTrue(network.balances().isConserved)
    }

    func testTrackPaymentFollowsAHeldPayment() async throws {
        let invoice = try holdInvoice()
        _ = try await send(invoice.paymentRequest)
        let tracked = try network.trackPayment(node: "alice", paymentHash: invoice.paymentHash)
        try network.settleInvoice(node: "bob", preimage: preimage(0x42))
        let states = await collect(tracked).map(\.status)
        XCTAssertEqual(states, [.inFlight, .succeeded])
        // A finished payment's track stream gives its final state and ends.
        let again = await collect(try network.trackPayment(node: "alice", paymentHash: invoice.paymentHash))
        XCTAssertEqual(again.map(\.status), [.succeeded])
    }
}
