import Bitcoin
import Lightning
import Regtest
import Synchronization
import TestSupport
import Transport
import XCTest

/// What a submarine swap's payee and payer see of time on the hub, through the real
/// endpoints: an invoice expires on the hub's clock (at normal and at mainnet pace) as in
/// LND, and a held HTLC lives by block height, not by the clock.
///
/// LND's facts relied on:
/// - routerrpc `ValidatePayReqExpiry`: a send of a request past `timestamp + expiry`
///   is refused before anything happens: "invoice expired. Valid until <time>" (a plain
///   error: code 2, HTTP 500);
/// - invoices `InvoiceExpiryWatcher`: an OPEN invoice (plain or hold) is CANCELED when
///   its expiry passes; an ACCEPTED one is left to its HTLC's height (`holdexpirydelta`).
final class RegtestHubInvoiceTimeTests: XCTestCase {
    static let amountMsat: UInt64 = 20_000_000
    static let aliceSat = 500_000
    /// 2026-01-01 00:00:00 UTC.
    static let start: Int64 = 1_767_225_600

    /// A settable wall clock for the hub.
    final class Wall: Sendable {
        let seconds = Mutex(RegtestHubInvoiceTimeTests.start)
        func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
        var now: Int64 { seconds.withLock { $0 } }
    }

    func testAtNormalPaceAnInvoicePastItsExpiryIsRefusedByThePayerAndCancelledByThePayee() async throws {
        let wall = Wall()
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 20, clock: { wall.now })
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let erin = try await harness.client(try await harness.addNode("erin", balanceSat: 0))

        let plain = try await erin.addInvoice(amountMsat: Self.amountMsat, memo: "", expirySeconds: 600, cltvExpiry: 0)
        XCTAssertEqual(try InvoiceDecoder.decode(plain.paymentRequest).timestamp, UInt64(Self.start), "stamped by the hub's clock")
        let updates = LNDIterator(erin.subscribeInvoice(paymentHash: plain.paymentHash))
        let open = try await lndNext(updates)
        XCTAssertEqual(open?.state, .open)
        // A hold invoice paid before the expiry: ACCEPTED, which time does not end.
        let secret = preimage(0xa1)
        let held = try await erin.addHoldInvoice(paymentHash: SHA256.hash(secret), amountMsat: Self.amountMsat, memo: "",
                                                 expirySeconds: 600, cltvExpiry: 0)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: held, feeLimitSat: 10, cltvLimit: 0, timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let inFlight = try await lndNext(payment)
        XCTAssertEqual(inFlight?.status, .inFlight)

        // One second before the expiry nothing happens, whatever the timer does.
        wall.advance(by: 599)
        try await Task.sleep(nanoseconds: 100_000_000)
        let stillOpen = try await erin.lookupInvoice(paymentHash: plain.paymentHash)
        XCTAssertEqual(stillOpen.state, .open)

        // At the expiry the payee's hub cancels it on its own (the timer; no call made)...
        wall.advance(by: 1)
        let cancelled = try await lndNext(updates, seconds: 5)
        XCTAssertEqual(cancelled?.state, .canceled)
        let end = try await lndNext(updates)
        XCTAssertNil(end)
        // ...and the payer's LND refuses it before sending anything.
        let refusal = await lndExpectError {
            for try await _ in alice.payInvoice(paymentRequest: plain.paymentRequest, feeLimitSat: 10, cltvLimit: 0,
                                                timeoutSeconds: 60) {}
        }
        XCTAssertEqual(refusal as? LightningBackendError,
                       .lnd(code: 2, message: "invoice expired. Valid until 2026-01-01 00:10:00 +0000 UTC", httpStatus: 500))
        let unsent = try await alice.paymentStatus(paymentHash: plain.paymentHash)
        XCTAssertNil(unsent, "a refused send records no payment")

        // An hour later the held HTLC is still held: only its height can end it.
        wall.advance(by: 3_600)
        try await Task.sleep(nanoseconds: 100_000_000)
        let accepted = try await erin.lookupInvoice(paymentHash: SHA256.hash(secret))
        XCTAssertEqual(accepted.state, .accepted)
        let status = try await alice.paymentStatus(paymentHash: SHA256.hash(secret))
        XCTAssertEqual(status, .inFlight)
        try await erin.settleInvoice(preimage: secret)
        let paid = try await lndNext(payment)
        XCTAssertEqual(paid?.status, .succeeded(preimage: secret))
        let balances = try await harness.balances()
        XCTAssertEqual(balances["nodes"]?["erin"]?.intValue, Int(Self.amountMsat), "only the held payment arrived")
        await harness.shutDown()
    }

    /// At 600 simulated seconds per real second (a block's ten minutes in one second) an
    /// invoice's 600 s pass in one real second: the payee cancels it and the payer
    /// refuses it, while one of an hour is still paid.
    func testAtMainnetPaceTheInvoicesSecondsAreSimulatedSeconds() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 20, clockRate: 600)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let erin = try await harness.client(try await harness.addNode("erin", balanceSat: 0))
        let started = ContinuousClock.now
        let short = try await erin.addInvoice(amountMsat: Self.amountMsat, memo: "", expirySeconds: 600, cltvExpiry: 0)
        let hour = try await erin.addInvoice(amountMsat: Self.amountMsat, memo: "", expirySeconds: 3_600, cltvExpiry: 0)
        let updates = LNDIterator(erin.subscribeInvoice(paymentHash: short.paymentHash))
        let open = try await lndNext(updates)
        XCTAssertEqual(open?.state, .open)
        let cancelled = try await lndNext(updates, seconds: 10)
        XCTAssertEqual(cancelled?.state, .canceled)
        let elapsed = ContinuousClock.now - started
        XCTAssertGreaterThan(elapsed, .milliseconds(900), "600 simulated seconds are a real second")
        XCTAssertLessThan(elapsed, .seconds(5), "not the real 600 s")

        let refusal = await lndExpectError {
            for try await _ in alice.payInvoice(paymentRequest: short.paymentRequest, feeLimitSat: 10, cltvLimit: 0,
                                                timeoutSeconds: 60) {}
        }
        guard case .lnd(2, let message, 500)? = refusal as? LightningBackendError else {
            return XCTFail("expected LND's refusal, got \(String(describing: refusal))")
        }
        XCTAssertTrue(message.hasPrefix("invoice expired. Valid until 20"), message)
        XCTAssertTrue(message.hasSuffix(" +0000 UTC"), message)

        var last: PaymentUpdate?
        for try await update in alice.payInvoice(paymentRequest: hour.paymentRequest, feeLimitSat: 10, cltvLimit: 0,
                                                 timeoutSeconds: 60) {
            last = update
        }
        guard case .succeeded(let preimage)? = last?.status else { return XCTFail("\(String(describing: last))") }
        XCTAssertEqual(SHA256.hash(preimage), hour.paymentHash)
        await harness.shutDown()
    }

    /// The payer's side of a held payment on the hub's chain: IN_FLIGHT block after block
    /// while the payee holds, its money locked until the route's time lock (tip + final
    /// delta + 3 + the route's 40), then SUCCEEDED with the preimage when the payee
    /// settles one block before its node would have cancelled. (Cancelling, and the
    /// payee's node cancelling 12 blocks before the HTLC's expiry: RegtestHubLightningTests
    /// and LNDClientEndToEndTests.)
    func testAHeldPaymentStaysInFlightAcrossBlocksUntilThePayeeSettles() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 20)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let erin = try await harness.client(try await harness.addNode("erin", balanceSat: 0))
        try await harness.generate(5)
        let tip = try await harness.height()
        let secret = preimage(0xa2)
        let hash = SHA256.hash(secret)
        let request = try await erin.addHoldInvoice(paymentHash: hash, amountMsat: Self.amountMsat, memo: "",
                                                    expirySeconds: 600, cltvExpiry: 40)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 10, cltvLimit: 0, timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let inFlight = try await lndNext(payment)
        XCTAssertEqual(inFlight?.status, .inFlight)
        XCTAssertEqual(inFlight?.lockedUntilHeight, tip + 40 + 3 + 40)
        let payeeExpiry = tip + 40 + 3
        let accepted = try await erin.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(accepted.earliestHeldExpiry, payeeExpiry)

        for _ in 0..<3 {
            try await harness.generate((payeeExpiry - 12 - 1 - tip) / 3)
            let status = try await alice.paymentStatus(paymentHash: hash)
            XCTAssertEqual(status, .inFlight)
        }
        let remaining = payeeExpiry - 12 - 1 - (try await harness.height())
        if remaining > 0 { try await harness.generate(remaining) }
        let height = try await harness.height()
        XCTAssertEqual(height, payeeExpiry - 13)
        let tracked = LNDIterator(alice.trackPayment(paymentHash: hash))
        let now = try await lndNext(tracked)
        XCTAssertEqual(now?.status, .inFlight, "one block before the payee's node would cancel")
        XCTAssertEqual(now?.lockedUntilHeight, tip + 83)
        try await erin.settleInvoice(preimage: secret)
        let paid = try await lndNext(payment)
        XCTAssertEqual(paid?.status, .succeeded(preimage: secret))
        let trackedPaid = try await lndNext(tracked)
        XCTAssertEqual(trackedPaid?.status, .succeeded(preimage: secret))
        let settled = try await erin.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(settled.state, .settled)
        let balances = try await harness.balances()
        XCTAssertEqual(balances["in_flight_msat"]?.intValue, 0)
        XCTAssertEqual(balances["nodes"]?["erin"]?.intValue, Int(Self.amountMsat))
        await harness.shutDown()
    }
}

/// The invoice timer keeps up with a fast clock: at most a simulated second between ticks
/// (no faster than every 10 ms real), and as configured at the wall clock's pace.
final class RegtestHubHousekeepingTests: XCTestCase {
    func testTheInvoiceTimerTicksAtLeastEverySimulatedSecondDownTo10Milliseconds() {
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 250, rate: 1), 250)
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 600_000, rate: 1), 600_000, "as configured at rate 1")
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 250, rate: 2), 250)
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 250, rate: 10), 100)
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 250, rate: 100), 10)
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 250, rate: 600), 10, "6 simulated seconds")
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 5, rate: 600), 5, "a faster setting stays")
        XCTAssertEqual(RegtestHub.housekeepingMilliseconds(configured: 0, rate: 1), 1)
    }
}
