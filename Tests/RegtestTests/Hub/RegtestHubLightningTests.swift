import Bitcoin
import Lightning
import Regtest
import TestSupport
import Transport
import XCTest

/// The hub's chain and Lightning simulator coupled, seen only through the real endpoints:
/// nodes added over JSON-RPC, invoices and payments over each node's LND REST server,
/// blocks mined over JSON-RPC (or by the auto-miner), balances from `hub_balances`.
final class RegtestHubLightningTests: XCTestCase {
    static let amountMsat: UInt64 = 250_000_000
    /// The standard routing policy's fee for `amountMsat`: 1000 msat + 100 ppm.
    static let feeMsat: UInt64 = 1_000 + 25_000
    static let aliceSat = 500_000
    /// LND's smallest final CLTV delta; the route adds 40, and a held HTLC is cancelled
    /// 12 blocks before its expiry.
    static let finalCLTV: UInt64 = 18

    /// The hub's timer is left too slow to matter, so the cancellation must have come from
    /// the chain's tip-change notification before the mining RPC call answered.
    func testMiningOverRPCCancelsAHeldHTLCNearExpiryAndRefundsThePayer() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let aliceNode = try await harness.addNode("alice", balanceSat: Self.aliceSat)
        let bobNode = try await harness.addNode("bob", balanceSat: 0)
        XCTAssertEqual(aliceNode["name"], "alice")
        XCTAssertEqual(aliceNode["balance_sat"]?.intValue, Self.aliceSat)
        XCTAssertEqual(aliceNode["balance_msat"]?.intValue, Self.aliceSat * 1_000)
        XCTAssertEqual(aliceNode["online"], .bool(true))
        let bobPort = try XCTUnwrap(bobNode["rest_port"]?.intValue)
        XCTAssertEqual(bobNode["rest_url"]?.stringValue, "http://127.0.0.1:\(bobPort)")
        XCTAssertNotEqual(aliceNode["macaroon_hex"], bobNode["macaroon_hex"])
        let alice = try await harness.client(aliceNode)
        let bob = try await harness.client(bobNode)

        try await harness.generate(10)
        let start = try await harness.height()
        let bobInfo = try await bob.info()
        XCTAssertEqual(bobInfo.blockHeight, start, "LND getinfo reads the hub chain's tip")
        let bestHash = try await harness.rpc.call("getbestblockhash").stringValue
        XCTAssertEqual(bobInfo.blockHash?.hex, bestHash, "and its hash, the block an Electrum server's headers are linked to")
        XCTAssertEqual(bobInfo.identityKey.compressed.hex, bobNode["identity_pubkey"]?.stringValue)

        let hash = SHA256.hash(preimage(0x61))
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amountMsat, memo: "hub swap",
                                                   expirySeconds: 600, cltvExpiry: Self.finalCLTV)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        let inFlight = try await lndNext(payment)
        let afterInitiated = try await lndNext(payment)
        XCTAssertEqual(afterInitiated?.status, .inFlight, "IN_FLIGHT follows INITIATED")
        XCTAssertEqual(inFlight?.status, .inFlight)
        let expiry = try await acceptedExpiry(bob, hash)
        XCTAssertEqual(expiry, start + Int(Self.finalCLTV) + 3, "the payer's tip + final delta + LND's BlockPadding")

        let held = try await harness.balances()
        XCTAssertEqual(held["in_flight_msat"]?.intValue, Int(Self.amountMsat + Self.feeMsat))
        XCTAssertEqual(held["nodes"]?["alice"]?.intValue, Self.aliceSat * 1_000 - Int(Self.amountMsat + Self.feeMsat))
        XCTAssertEqual(held["nodes"]?["bob"]?.intValue, 0)

        // One block short of the cancellation height: still held.
        try await harness.generate(expiry - 12 - 1 - start)
        let stillHeld = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(stillHeld.state, .accepted)

        // The block that brings the HTLC within 12 blocks of expiry: cancelled by the time
        // generatetoaddress has answered.
        try await harness.generate(1)
        let invoice = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(invoice.state, .canceled)
        XCTAssertEqual(invoice.htlcs.map(\.state), [.canceled])
        let failed = try await lndNext(payment)
        XCTAssertEqual(failed?.status, .failed(.incorrectPaymentDetails))
        let end = try await lndNext(payment)
        XCTAssertNil(end)
        let aliceBalance = try await alice.channelBalance()
        XCTAssertEqual(aliceBalance, FunderCommitment.localBalance(UInt64(Self.aliceSat) * 1_000), "the payer is refunded, fee included")

        let after = try await harness.balances()
        XCTAssertEqual(after["in_flight_msat"]?.intValue, 0)
        XCTAssertEqual(after["fees_collected_msat"]?.intValue, 0)
        XCTAssertEqual(after["funded_msat"]?.intValue, Self.aliceSat * 1_000)
        XCTAssertEqual(after["nodes"]?["alice"]?.intValue, Self.aliceSat * 1_000)
        await harness.shutDown()
    }

    /// Blocks the auto-miner makes reach the Lightning side too, through the chain's
    /// tip-change notification.
    func testAutoMinedBlockCancelsAHeldHTLCNearExpiry() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 50)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let bob = try await harness.client(try await harness.addNode("bob", balanceSat: 0))
        let start = try await harness.height()
        let hash = SHA256.hash(preimage(0x62))
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: Self.amountMsat, memo: "",
                                                   expirySeconds: 600, cltvExpiry: Self.finalCLTV)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let afterInitiated = try await lndNext(payment)
        XCTAssertEqual(afterInitiated?.status, .inFlight, "IN_FLIGHT follows INITIATED")
        let expiry = try await acceptedExpiry(bob, hash)
        try await harness.generate(expiry - 12 - 1 - start)
        let stillHeld = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(stillHeld.state, .accepted)

        _ = try await harness.rpc.call("hub_automine", "[1]")
        let failed = try await lndNext(payment, seconds: 10)
        XCTAssertEqual(failed?.status, .failed(.incorrectPaymentDetails))
        _ = try await harness.rpc.call("hub_automine", "[0]")
        let height = try await harness.height()
        XCTAssertGreaterThanOrEqual(height, expiry - 12)
        let aliceBalance = try await alice.channelBalance()
        XCTAssertEqual(aliceBalance, FunderCommitment.localBalance(UInt64(Self.aliceSat) * 1_000))
        _ = try await harness.balances()
        await harness.shutDown()
    }

    /// Settling through the REST endpoints moves the money and the fee, and the books
    /// still balance; a reorg (invalidateblock) is followed as well.
    func testSettledPaymentAndReorgKeepBalancesConserved() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let bob = try await harness.client(try await harness.addNode("bob", balanceSat: 0))
        try await harness.generate(5)
        let secret = preimage(0x63)
        let request = try await bob.addHoldInvoice(paymentHash: SHA256.hash(secret), amountMsat: Self.amountMsat,
                                                   memo: "", expirySeconds: 600, cltvExpiry: 144)
        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let afterInitiated = try await lndNext(payment)
        XCTAssertEqual(afterInitiated?.status, .inFlight, "IN_FLIGHT follows INITIATED")
        _ = try await acceptedExpiry(bob, SHA256.hash(secret))
        try await bob.settleInvoice(preimage: secret)
        let succeeded = try await lndNext(payment)
        XCTAssertEqual(succeeded?.status, .succeeded(preimage: secret))

        let settled = try await harness.balances()
        XCTAssertEqual(settled["nodes"]?["bob"]?.intValue, Int(Self.amountMsat))
        XCTAssertEqual(settled["fees_collected_msat"]?.intValue, Int(Self.feeMsat))
        XCTAssertEqual(settled["in_flight_msat"]?.intValue, 0)

        // A reorg lowers the tip; LND's getinfo follows it.
        let tip = try await harness.rpc.call("getbestblockhash")
        _ = try await harness.rpc.call("invalidateblock", "[\(tip.stringValue.map { "\"\($0)\"" } ?? "null")]")
        let lowered = try await harness.height()
        let info = try await bob.info()
        XCTAssertEqual(info.blockHeight, lowered)
        let loweredHash = try await harness.rpc.call("getbestblockhash").stringValue
        XCTAssertEqual(info.blockHash?.hex, loweredHash)
        _ = try await harness.balances()
        await harness.shutDown()
    }

    /// The `hub_ln_*` control methods and their refusals.
    func testNodeControlMethods() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        let alice = try await harness.client(try await harness.addNode("alice", balanceSat: Self.aliceSat))
        let bob = try await harness.client(try await harness.addNode("bob", balanceSat: 1_000))

        let duplicate = try await harness.rpc.raw("hub_ln_addnode", "[\"bob\",5]")
        XCTAssertEqual(duplicate.status, 500)
        XCTAssertTrue(duplicate.body.contains("\"code\":-8"), duplicate.body)
        let unknown = try await harness.rpc.raw("hub_ln_setbalance", "[\"carol\",5]")
        XCTAssertTrue(unknown.body.contains("\"code\":-5"), unknown.body)
        let negative = try await harness.rpc.raw("hub_ln_addnode", "[\"carol\",-1]")
        XCTAssertTrue(negative.body.contains("\"code\":-8"), negative.body)

        let raised = try await harness.rpc.call("hub_ln_setbalance", "[\"bob\",20000]")
        XCTAssertEqual(raised["balance_sat"]?.intValue, 20_000)
        // A channel of that size, opened by bob: he pays its commitment fee and anchors.
        let bobBalance = try await bob.channelBalance()
        XCTAssertEqual(bobBalance, FunderCommitment.localBalance(20_000_000))
        let funded = try await harness.balances()
        XCTAssertEqual(funded["funded_msat"]?.intValue, (Self.aliceSat + 20_000) * 1_000)

        // Offline, bob cannot be paid; back online, he can.
        let offline = try await harness.rpc.call("hub_ln_setonline", "[\"bob\",false]")
        XCTAssertEqual(offline["online"], .bool(false))
        let secret = preimage(0x64)
        let request = try await bob.addHoldInvoice(paymentHash: SHA256.hash(secret), amountMsat: Self.amountMsat,
                                                   memo: "", expirySeconds: 600, cltvExpiry: 144)
        let refused = try await within(seconds: 10) {
            var statuses: [PaymentUpdate.Status] = []
            for try await update in alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                     timeoutSeconds: 60) {
                statuses.append(update.status)
            }
            return statuses
        }
        XCTAssertEqual(refused.last, .failed(.noRoute))
        let nodes = try await harness.rpc.call("hub_ln_nodes")
        XCTAssertEqual(nodes.keys, ["alice", "bob"])
        XCTAssertEqual(nodes["bob"]?["online"], .bool(false))
        XCTAssertEqual(nodes["alice"]?["balance_msat"]?.intValue, Self.aliceSat * 1_000)
        let online = try await harness.rpc.call("hub_ln_setonline", "[\"bob\",true]")
        XCTAssertEqual(online["online"], .bool(true))

        // The start-up description lists the same nodes.
        XCTAssertEqual(harness.hub.endpoints["lightning"]?.keys, ["alice", "bob"])
        XCTAssertEqual(harness.hub.endpoints["lightning"]?["bob"]?["macaroon_hex"], nodes["bob"]?["macaroon_hex"])
        _ = try await harness.balances()
        await harness.shutDown()
    }

    /// `hub_ln_fault`: a fault name it does not know and an unknown node are refused with
    /// Core's codes and a message listing the faults; a known fault answers the counts.
    func testTheFaultControlRefusesBadInputAndReportsItsCounts() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000)
        _ = try await harness.addNode("alice", balanceSat: Self.aliceSat)
        let unknownFault = try await harness.rpc.raw("hub_ln_fault", "[\"alice\",\"explode\"]")
        XCTAssertTrue(unknownFault.body.contains("\"code\":-8"), unknownFault.body)
        XCTAssertTrue(unknownFault.body.contains("send_stream_error, send_stream_silent, send_error_after_start, restart, silent_unknown_invoice, clear"), unknownFault.body)
        let unknownNode = try await harness.rpc.raw("hub_ln_fault", "[\"carol\",\"restart\"]")
        XCTAssertTrue(unknownNode.body.contains("\"code\":-5"), unknownNode.body)
        let armed = try await harness.rpc.call("hub_ln_fault", "[\"alice\",\"send_stream_error\"]")
        XCTAssertEqual(armed["send_stream_errors_armed_before"]?.intValue, 0)
        XCTAssertEqual(armed["send_requests"]?.intValue, 0)
        let cleared = try await harness.rpc.call("hub_ln_fault", "[\"alice\",\"clear\"]")
        XCTAssertEqual(cleared["send_stream_errors_armed_before"]?.intValue, 1, "armed and never used")
        await harness.shutDown()
    }

    /// Waits for the hold invoice to be ACCEPTED and returns its HTLC's expiry height.
    private func acceptedExpiry(_ payee: LNDRESTClient, _ hash: [UInt8]) async throws -> Int {
        try await within(seconds: 10) {
            while true {
                let invoice = try await payee.lookupInvoice(paymentHash: hash)
                if invoice.state == .accepted, let expiry = invoice.earliestHeldExpiry { return expiry }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
        }
    }
}
