import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// `hub_ln_hold` / `hub_ln_release`: a payee that holds the HTLCs paid to its plain
/// invoices behaves as LND at a hold invoice, seen only through the real endpoints (the
/// payer's LND REST, the hub's JSON-RPC): the payment stays IN_FLIGHT and the invoice
/// ACCEPTED until the payee settles or cancels, and LND's hold-expiry rule still cancels it
/// 12 blocks before the HTLC's expiry, after which it can no longer be settled.
final class RegtestHubPayeeHoldTests: XCTestCase {
    static let amountMsat: UInt64 = 250_000_000
    static let aliceSat = 500_000
    static let finalCLTV: UInt64 = 18

    func testAHoldingPayeeKeepsTheHTLCUntilItSettlesWithItsInvoicesPreimage() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let bob = try await harness.client(try await harness.addNode("bob", balanceSat: 0))
        try await harness.generate(3)
        let start = try await harness.height()
        let set = try await harness.rpc.call("hub_ln_hold", "[\"bob\",true]")
        XCTAssertEqual(set["hold"], .bool(true))
        XCTAssertEqual(set["held"]?.arrayValue.count, 0)

        let invoice = try await bob.addInvoice(amountMsat: Self.amountMsat, memo: "held", expirySeconds: 3_600,
                                               cltvExpiry: Self.finalCLTV)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: invoice.paymentRequest, feeLimitSat: 100,
                                                   cltvLimit: 100, timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let inFlight = try await lndNext(payment)
        XCTAssertEqual(inFlight?.status, .inFlight)
        let held = try await heldEntry(harness, invoice.paymentHash)
        let expiry = start + Int(Self.finalCLTV) + 3
        XCTAssertEqual(held["payer"]?.stringValue, "alice")
        XCTAssertEqual(held["amount_msat"]?.intValue, Int(Self.amountMsat))
        XCTAssertEqual(held["accept_height"]?.intValue, start)
        XCTAssertEqual(held["expiry_height"]?.intValue, expiry)
        XCTAssertEqual(held["cancel_height"]?.intValue, expiry - 12)
        XCTAssertEqual(held["payer_time_lock"]?.intValue, start + Int(Self.finalCLTV) + 3 + 40, "the route adds its 40 blocks")
        let accepted = try await bob.lookupInvoice(paymentHash: invoice.paymentHash)
        XCTAssertEqual(accepted.state, .accepted, "held, as at a hold invoice")
        let holding = try await harness.balances()
        XCTAssertGreaterThan(holding["in_flight_msat"]?.intValue ?? 0, 0)

        // The last block before LND's cancel: the payee may still settle.
        try await harness.generate(expiry - 12 - 1 - start)
        let settled = try await harness.rpc.call("hub_ln_release", "[\"bob\",\"\(invoice.paymentHash.hex)\",\"settle\"]")
        XCTAssertEqual(settled["state"]?.stringValue, "SETTLED")
        let succeeded = try await lndNext(payment)
        guard case .succeeded(let preimage)? = succeeded?.status else { return XCTFail("not settled: \(String(describing: succeeded))") }
        XCTAssertEqual(SHA256.hash(preimage), invoice.paymentHash, "the invoice's own preimage")
        let after = try await harness.balances()
        XCTAssertEqual(after["in_flight_msat"]?.intValue, 0)
        XCTAssertEqual(after["nodes"]?["bob"]?.intValue, Int(Self.amountMsat))
        let empty = try await harness.rpc.call("hub_ln_hold", "[\"bob\"]")
        XCTAssertEqual(empty["hold"], .bool(true), "a report leaves the switch as it is")
        XCTAssertEqual(empty["held"]?.arrayValue.count, 0)
        await harness.shutDown()
    }

    /// LND cancels a held HTLC once the tip is within 12 blocks of its expiry, and a
    /// cancelled invoice is never settled afterwards: a payee cannot release the preimage
    /// later than that, whatever it wants.
    func testAHeldHTLCIsCancelledTwelveBlocksBeforeItsExpiryAndCannotBeSettledAfter() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let bob = try await harness.client(try await harness.addNode("bob", balanceSat: 0))
        _ = try await harness.rpc.call("hub_ln_hold", "[\"bob\",true]")
        let start = try await harness.height()
        let invoice = try await bob.addInvoice(amountMsat: Self.amountMsat, memo: "", expirySeconds: 3_600,
                                               cltvExpiry: Self.finalCLTV)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: invoice.paymentRequest, feeLimitSat: 100,
                                                   cltvLimit: 0, timeoutSeconds: 60))
        _ = try await lndNext(payment)
        _ = try await lndNext(payment)
        let held = try await heldEntry(harness, invoice.paymentHash)
        let cancelHeight = try XCTUnwrap(held["cancel_height"]?.intValue)
        try await harness.generate(cancelHeight - 1 - start)
        let still = try await bob.lookupInvoice(paymentHash: invoice.paymentHash)
        XCTAssertEqual(still.state, .accepted)
        try await harness.generate(1)
        let failed = try await lndNext(payment)
        XCTAssertEqual(failed?.status, .failed(.incorrectPaymentDetails))
        let late = try await harness.rpc.raw("hub_ln_release", "[\"bob\",\"\(invoice.paymentHash.hex)\",\"settle\"]")
        XCTAssertTrue(late.body.contains("invoice already canceled"), late.body)
        let aliceBalance = try await alice.channelBalance()
        XCTAssertEqual(aliceBalance, FunderCommitment.localBalance(UInt64(Self.aliceSat) * 1_000),
                       "the payer has its money back, fee included")
        let after = try await harness.balances()
        XCTAssertEqual(after["in_flight_msat"]?.intValue, 0)
        XCTAssertEqual(after["nodes"]?["bob"]?.intValue, 0)
        await harness.shutDown()
    }

    /// Cancel fails the payment back; with the switch off the payee settles at once again;
    /// bad input is refused with Core's codes and changes nothing.
    func testCancelSwitchOffAndRefusals() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let bob = try await harness.client(try await harness.addNode("bob", balanceSat: 0))
        _ = try await harness.rpc.call("hub_ln_hold", "[\"bob\",true]")
        let first = try await bob.addInvoice(amountMsat: Self.amountMsat, memo: "", expirySeconds: 3_600, cltvExpiry: 40)
        let open = try await harness.rpc.raw("hub_ln_release", "[\"bob\",\"\(first.paymentHash.hex)\",\"settle\"]")
        XCTAssertTrue(open.body.contains("invoice still open"), "nothing to settle yet: \(open.body)")
        let payment = LNDIterator(alice.payInvoice(paymentRequest: first.paymentRequest, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        _ = try await lndNext(payment)
        _ = try await lndNext(payment)
        _ = try await heldEntry(harness, first.paymentHash)
        let cancelled = try await harness.rpc.call("hub_ln_release", "[\"bob\",\"\(first.paymentHash.hex)\",\"cancel\"]")
        XCTAssertEqual(cancelled["state"]?.stringValue, "CANCELED")
        let failed = try await lndNext(payment)
        XCTAssertEqual(failed?.status, .failed(.incorrectPaymentDetails))

        let off = try await harness.rpc.call("hub_ln_hold", "[\"bob\",false]")
        XCTAssertEqual(off["hold"], .bool(false))
        let second = try await bob.addInvoice(amountMsat: Self.amountMsat, memo: "", expirySeconds: 3_600, cltvExpiry: 40)
        let paid = LNDIterator(alice.payInvoice(paymentRequest: second.paymentRequest, feeLimitSat: 100, cltvLimit: 0,
                                                timeoutSeconds: 60))
        var last = try await lndNext(paid)
        while let update = last, !update.status.isFinal { last = try await lndNext(paid) }
        guard case .succeeded? = last?.status else { return XCTFail("settled at once with the switch off: \(String(describing: last))") }

        let unknownNode = try await harness.rpc.raw("hub_ln_hold", "[\"carol\",true]")
        XCTAssertTrue(unknownNode.body.contains("\"code\":-5"), unknownNode.body)
        let badAction = try await harness.rpc.raw("hub_ln_release", "[\"bob\",\"\(second.paymentHash.hex)\",\"keep\"]")
        XCTAssertTrue(badAction.body.contains("\"code\":-8"), badAction.body)
        let badHash = try await harness.rpc.raw("hub_ln_release", "[\"bob\",\"abcd\",\"settle\"]")
        XCTAssertTrue(badHash.body.contains("\"code\":-8"), badHash.body)
        let unknownInvoice = try await harness.rpc.raw("hub_ln_release", "[\"bob\",\"\(String(repeating: "00", count: 32))\",\"cancel\"]")
        XCTAssertTrue(unknownInvoice.body.contains("unable to locate invoice"), unknownInvoice.body)
        // A hold invoice made over REST keeps its preimage with its payee (alice has half
        // her balance left: a smaller one).
        let hold = try await bob.addHoldInvoice(paymentHash: SHA256.hash(preimage(0x44)), amountMsat: 100_000_000,
                                                memo: "", expirySeconds: 3_600, cltvExpiry: 40)
        let holdPayment = LNDIterator(alice.payInvoice(paymentRequest: hold, feeLimitSat: 100, cltvLimit: 0, timeoutSeconds: 60))
        _ = try await lndNext(holdPayment)
        _ = try await lndNext(holdPayment)
        _ = try await heldEntry(harness, SHA256.hash(preimage(0x44)))
        let restHold = try await harness.rpc.raw("hub_ln_release", "[\"bob\",\"\(SHA256.hash(preimage(0x44)).hex)\",\"settle\"]")
        XCTAssertTrue(restHold.body.contains("/v2/invoices/settle"), restHold.body)
        try await bob.settleInvoice(preimage: preimage(0x44))
        _ = try await harness.balances()
        await harness.shutDown()
    }

    /// Waits until `hub_ln_hold` lists the HTLC of `hash` as held; its entry.
    private func heldEntry(_ harness: RegtestHubHarness, _ hash: [UInt8]) async throws -> OrderedJSON {
        let rpc = harness.rpc
        return try await within(seconds: 10) {
            while true {
                let report = try await rpc.call("hub_ln_hold", "[\"bob\"]")
                if let entry = report["held"]?.arrayValue.first(where: { $0["payment_hash"]?.stringValue == hash.hex }) {
                    return entry
                }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
    }
}
