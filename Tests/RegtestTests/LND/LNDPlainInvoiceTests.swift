import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// A plain invoice (lnrpc AddInvoice) made through `LightningBackend.addInvoice`, read
/// the way a submarine provider reads the invoice it is asked to pay (the node's BOLT11
/// decoder, checked against LND's DecodePayReq), and paid through the hub.
final class LNDPlainInvoiceTests: XCTestCase {
    static let payerBalance: UInt64 = 10_000_000_000
    static let amount: UInt64 = 20_000_000

    func testAPlainInvoiceIsMadeReadAlikeByBothDecodersAndSettlesWhenPaid() async throws {
        let hub = try await LNDTestHub.start([("alice", Self.payerBalance), ("erin", 0)])
        let alice = try await hub.client("alice")
        let erin = try await hub.client("erin")
        let created = try await erin.addInvoice(amountMsat: Self.amount, memo: "for erin", expirySeconds: 900, cltvExpiry: 40)
        XCTAssertEqual(created.addIndex, 1)
        let second = try await erin.addInvoice(amountMsat: Self.amount, memo: "", expirySeconds: 0, cltvExpiry: 0)
        XCTAssertEqual(second.addIndex, 2, "add_index counts the node's invoices")
        XCTAssertNotEqual(second.paymentHash, created.paymentHash, "each plain invoice has its own preimage")

        // The provider's reading: its own decoder, confirmed by its LND.
        let invoice = try await PaymentRequestCheck.read(created.paymentRequest, network: .regtest, backend: alice)
        XCTAssertEqual(invoice.paymentHash, created.paymentHash)
        XCTAssertEqual(invoice.paymentSecret, created.paymentAddress)
        XCTAssertEqual(invoice.amountMsat, Self.amount)
        XCTAssertEqual(invoice.expirySeconds, 900)
        XCTAssertEqual(invoice.minFinalCLTVExpiryDelta, 40)
        XCTAssertEqual(invoice.payeeNodeID, try hub.network.node("erin").identityKey)
        XCTAssertEqual(invoice.timestamp, SimEnvironment.startTime)
        let lnd = try await alice.decodeInvoice(created.paymentRequest)
        XCTAssertEqual(PaymentRequestDetails(invoice), lnd)
        // LND's defaults for 0: 24 hours and a final delta of 80 blocks.
        let defaults = try await alice.decodeInvoice(second.paymentRequest)
        XCTAssertEqual(defaults.expirySeconds, 86_400)
        XCTAssertEqual(defaults.cltvExpiry, 80)

        let open = try await erin.lookupInvoice(paymentHash: created.paymentHash)
        XCTAssertEqual(open.state, .open)
        let updates = try await within(seconds: 10) {
            var seen: [PaymentUpdate] = []
            for try await update in alice.payInvoice(paymentRequest: created.paymentRequest, feeLimitSat: 10,
                                                     cltvLimit: 0, timeoutSeconds: 60) {
                seen.append(update)
            }
            return seen
        }
        guard case .succeeded(let preimage)? = updates.last?.status else {
            return XCTFail("a plain invoice settles when paid: \(updates)")
        }
        XCTAssertEqual(SHA256.hash(preimage), created.paymentHash)
        XCTAssertEqual(updates.dropLast().map(\.status), [.inFlight, .inFlight], "INITIATED, then IN_FLIGHT")

        let settled = try await erin.lookupInvoice(paymentHash: created.paymentHash)
        XCTAssertEqual(settled.state, .settled)
        XCTAssertEqual(settled.preimage, preimage)
        XCTAssertEqual(settled.amountPaidMsat, Self.amount)
        XCTAssertEqual(settled.htlcs.map(\.state), [.settled])
        let received = try await erin.channelBalance()
        XCTAssertEqual(received, Self.amount, "the payee receives exactly the invoice's amount")
        await hub.shutDown(alice, erin)
    }

    /// LND's AddInvoice limits (lnrpc/invoicesrpc/addinvoice.go), for plain and hold
    /// invoices alike, with LND's messages (a plain Go error: code 2, HTTP 500).
    func testAddInvoiceRefusesWhatLNDRefusesWithLNDsWords() async throws {
        let hub = try await LNDTestHub.start([("erin", 0)])
        let erin = try await hub.client("erin")
        func refusal(_ body: () async throws -> Void) async -> LightningBackendError? {
            await lndExpectError(body) as? LightningBackendError
        }
        let year: UInt64 = 31_536_000
        let longExpiry = await refusal { _ = try await erin.addInvoice(amountMsat: 1_000, memo: "", expirySeconds: year + 1, cltvExpiry: 0) }
        XCTAssertEqual(longExpiry, .lnd(code: 2, message: "expiry of 3.1536001e+07 seconds greater than max expiry of 3.1536e+07 seconds",
                                        httpStatus: 500))
        let longHold = await refusal {
            _ = try await erin.addHoldInvoice(paymentHash: SHA256.hash(preimage(0x71)), amountMsat: 1_000, memo: "",
                                              expirySeconds: year + 1, cltvExpiry: 0)
        }
        XCTAssertEqual(longHold, longExpiry, "a hold invoice goes through the same AddInvoice")
        let yearLong = try await erin.addInvoice(amountMsat: 1_000, memo: "", expirySeconds: year, cltvExpiry: 0)
        XCTAssertEqual(try InvoiceDecoder.decode(yearLong.paymentRequest).expirySeconds, year, "one year is allowed")

        let maxMsat: UInt64 = 100_000 * 100_000_000 * 1_000
        let tooMuch = await refusal { _ = try await erin.addInvoice(amountMsat: maxMsat + 1_000, memo: "", expirySeconds: 0, cltvExpiry: 0) }
        XCTAssertEqual(tooMuch, .lnd(code: 2, message: "invoice amount 100000.00000001 BTC is too large, max is 100000 BTC",
                                     httpStatus: 500))
        // LND compares whole satoshis: 999 msat over the maximum still passes.
        _ = try await erin.addInvoice(amountMsat: maxMsat + 999, memo: "", expirySeconds: 0, cltvExpiry: 0)

        let memo = String(repeating: "m", count: 1_025)
        let longMemo = await refusal { _ = try await erin.addInvoice(amountMsat: 1_000, memo: memo, expirySeconds: 0, cltvExpiry: 0) }
        XCTAssertEqual(longMemo, .lnd(code: 2, message: "memo too large: 1025 bytes (maxsize=1024)", httpStatus: 500))
        let shortDelta = await refusal { _ = try await erin.addInvoice(amountMsat: 1_000, memo: "", expirySeconds: 0, cltvExpiry: 17) }
        XCTAssertEqual(shortDelta, .lnd(code: 2, message: "CLTV delta of 17 must be greater than minimum of 18", httpStatus: 500))
        let invoices = try hub.network.node("erin")
        XCTAssertEqual(invoices.balanceMsat, 0)
        await hub.shutDown(erin)
    }

    /// The node's own reading refuses what it must not pay before LND is asked.
    func testTheNodesOwnReadingRefusesAnotherNetworkAndGarbage() async throws {
        let hub = try await LNDTestHub.start([("erin", 0)])
        let erin = try await hub.client("erin")
        let created = try await erin.addInvoice(amountMsat: 1_000, memo: "", expirySeconds: 0, cltvExpiry: 0)
        XCTAssertEqual(try? PaymentRequestCheck.local(created.paymentRequest, network: .regtest).paymentHash, created.paymentHash)
        XCTAssertThrowsError(try PaymentRequestCheck.local(created.paymentRequest, network: .mainnet)) {
            XCTAssertEqual($0 as? PaymentRequestCheckError, .wrongNetwork(prefix: "lnbcrt", expected: "lnbc"))
        }
        XCTAssertThrowsError(try PaymentRequestCheck.local("lnbcrt1garbage", network: .regtest)) {
            guard case .undecodable? = $0 as? PaymentRequestCheckError else { return XCTFail("\($0)") }
        }
        await hub.shutDown(erin)
    }

    /// Two readings that differ in any term are a refusal, and the term is named.
    func testReadingsThatDifferNameTheTerm() throws {
        let key = try PrivateKey(preimage(7)).publicKey
        let base = PaymentRequestDetails(destination: key, paymentHash: preimage(1), amountMsat: 5_000, timestamp: 10,
                                         expirySeconds: 600, description: "d", cltvExpiry: 40, paymentAddress: preimage(2))
        XCTAssertNil(base.firstDifference(from: base))
        var changes: [(String, (inout PaymentRequestDetails) -> Void)] = []
        changes.append(("payment_hash", { $0.paymentHash = preimage(3) }))
        changes.append(("num_msat", { $0.amountMsat += 1 }))
        changes.append(("timestamp", { $0.timestamp += 1 }))
        changes.append(("expiry", { $0.expirySeconds += 1 }))
        changes.append(("cltv_expiry", { $0.cltvExpiry += 1 }))
        changes.append(("payment_addr", { $0.paymentAddress = [] }))
        changes.append(("description", { $0.description = "e" }))
        for (field, change) in changes {
            var other = base
            change(&other)
            XCTAssertEqual(base.firstDifference(from: other), field)
        }
    }
}
