import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// `cltv_limit` of SendPaymentV2 as LND applies it: the route's whole time lock — the
/// payee's final CLTV delta, LND's BlockPadding (3) and every hop's delta (the hub's one
/// routing node: 40) — must fit under it, else no route (FAILURE_REASON_NO_ROUTE), and
/// nothing is sent. What a submarine provider relies on to bound how long a payee can
/// hold its payment. LND: routing/payment_session.go RequestRoute subtracts
/// `FinalCLTVDelta + BlockPadding` from `CltvLimit` and path finding holds the hops'
/// deltas against the rest; routerrpc's ValidateCLTVLimit makes 0 mean `--max-cltv-expiry`
/// (2016) and refuses more.
final class LNDCLTVLimitTests: XCTestCase {
    static let payerBalance: UInt64 = 10_000_000_000
    static let amount: UInt64 = 20_000_000

    func testTheRoutesTimeLockMustFitUnderTheLimitThePayeesFinalDeltaIncluded() async throws {
        let hub = try await LNDTestHub.start([("prov", Self.payerBalance), ("erin", 0)])
        let prov = try await hub.client("prov")
        let erin = try await hub.client("erin")
        for (index, finalDelta) in [UInt64(18), 80, 144].enumerated() {
            let whole = UInt32(finalDelta) + 3 + 40
            let secret = preimage(UInt8(0x80 + index))
            let hash = SHA256.hash(secret)
            let request = try await erin.addHoldInvoice(paymentHash: hash, amountMsat: Self.amount, memo: "",
                                                        expirySeconds: 600, cltvExpiry: finalDelta)

            // One block under: no route, no HTLC out, nothing moved, the invoice still open.
            let refused = try await payAll(prov, request, cltvLimit: whole - 1)
            XCTAssertEqual(refused.map(\.status), [.inFlight, .failed(.noRoute)], "final delta \(finalDelta)")
            XCTAssertEqual(refused.last?.attempts, [], "no HTLC was sent")
            let unchanged = try await prov.channelBalance()
            XCTAssertEqual(unchanged, FunderCommitment.localBalance(Self.payerBalance))
            let open = try await erin.lookupInvoice(paymentHash: hash)
            XCTAssertEqual(open.state, .open)

            // Exactly the route's time lock: the HTLC goes out (LND lets a failed payment be
            // sent again) and the payer's money is locked until tip + the whole delta.
            let payment = LNDIterator(prov.payInvoice(paymentRequest: request, feeLimitSat: 10, cltvLimit: whole,
                                                      timeoutSeconds: 60))
            _ = try await lndNext(payment)
            let held = try await lndNext(payment)
            XCTAssertEqual(held?.status, .inFlight)
            XCTAssertEqual(held?.lockedUntilHeight, SimEnvironment.startHeight + Int(whole))
            let accepted = try await erin.lookupInvoice(paymentHash: hash)
            XCTAssertEqual(accepted.earliestHeldExpiry, SimEnvironment.startHeight + Int(finalDelta) + 3,
                           "the payee's HTLC: the payer's tip + final delta + BlockPadding")
            try await erin.settleInvoice(preimage: secret)
            let done = try await lndNext(payment)
            XCTAssertEqual(done?.status, .succeeded(preimage: secret))
            try hub.network.setBalance(node: "prov", balanceMsat: Self.payerBalance)
        }
        await hub.shutDown(prov, erin)
    }

    /// 0 is LND's maximum (2016); above it the send is refused before it starts, with
    /// routerrpc's words (a plain error: code 2, HTTP 500); an invoice whose final delta
    /// alone leaves no route under the maximum fails with NO_ROUTE.
    func testZeroIsTheMaximumAndMoreIsRefusedBeforeTheSend() async throws {
        let hub = try await LNDTestHub.start([("prov", Self.payerBalance), ("erin", 0)])
        let prov = try await hub.client("prov")
        let erin = try await hub.client("erin")
        let request = try await erin.addHoldInvoice(paymentHash: SHA256.hash(preimage(0x90)), amountMsat: Self.amount,
                                                    memo: "", expirySeconds: 600, cltvExpiry: 2016 - 43 + 1)
        let over = await lndExpectError { try await self.payAll(prov, request, cltvLimit: 2017) }
        XCTAssertEqual(over as? LightningBackendError,
                       .lnd(code: 2, message: "total time lock of 2017 exceeds max allowed 2016", httpStatus: 500))
        let atMaximum = try await payAll(prov, request, cltvLimit: 0)
        XCTAssertEqual(atMaximum.map(\.status), [.inFlight, .failed(.noRoute)], "1974 + 3 + 40 = 2017 > 2016")
        let balance = try await prov.channelBalance()
        XCTAssertEqual(balance, FunderCommitment.localBalance(Self.payerBalance))
        await hub.shutDown(prov, erin)
    }

    private func payAll(_ payer: LNDRESTClient, _ request: String, cltvLimit: UInt32) async throws -> [PaymentUpdate] {
        try await within(seconds: 10) {
            var updates: [PaymentUpdate] = []
            for try await update in payer.payInvoice(paymentRequest: request, feeLimitSat: 10, cltvLimit: cltvLimit,
                                                     timeoutSeconds: 60) {
                updates.append(update)
            }
            return updates
        }
    }
}
