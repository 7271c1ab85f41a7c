import Bitcoin
import Lightning
import Regtest
import TestSupport
import XCTest

/// The simulator's invoices are real BOLT11: the module's decoder reads them, they are
/// signed by the payee node's identity key, and they carry what was asked.
final class SimulatedInvoiceEncodingTests: XCTestCase {
    func testHoldInvoiceDecodesWithPayeeKeyAndTerms() throws {
        let world = SimWorld()
        let bob = try world.network.addNode(name: "bob", balanceMsat: 0, alias: "provider")
        XCTAssertEqual(bob.alias, "provider")
        let hash = SHA256.hash(preimage(0x42))
        let added = try world.network.addHoldInvoice(node: "bob", paymentHash: hash, amountMsat: 250_000_000,
                                                     memo: "swap 7f3a", expirySeconds: 600, cltvExpiry: 216)
        XCTAssertTrue(added.paymentRequest.hasPrefix("lnbcrt2500u1"), added.paymentRequest)

        let decoded = try InvoiceDecoder.decode(added.paymentRequest)
        XCTAssertEqual(decoded.currency, .regtest)
        XCTAssertEqual(decoded.payeeNodeID, bob.identityKey)
        XCTAssertEqual(decoded.paymentHash, hash)
        XCTAssertEqual(decoded.paymentSecret, added.paymentAddress)
        XCTAssertEqual(decoded.amountMsat, 250_000_000)
        XCTAssertEqual(decoded.descriptionText, "swap 7f3a")
        XCTAssertEqual(decoded.timestamp, SimEnvironment.startTime)
        XCTAssertEqual(decoded.expirySeconds, 600)
        XCTAssertEqual(decoded.statedMinFinalCLTVExpiryDelta, 216)
        XCTAssertEqual(try world.network.decodePaymentRequest(added.paymentRequest), decoded)

        let invoice = try world.network.lookupInvoice(node: "bob", paymentHash: hash)
        XCTAssertEqual(invoice.paymentRequest, added.paymentRequest)
        XCTAssertEqual(invoice.valueMsat, 250_000_000)
        XCTAssertEqual(invoice.cltvExpiry, 216)
        XCTAssertEqual(invoice.expirySeconds, 600)
        XCTAssertEqual(invoice.addIndex, 1)
        XCTAssertEqual(invoice.state, .open)
    }

    func testNodeIdentitiesAreDistinctAndStableByName() throws {
        let first = SimWorld(), second = SimWorld()
        let alice1 = try first.network.addNode(name: "alice", balanceMsat: 0)
        let bob1 = try first.network.addNode(name: "bob", balanceMsat: 0)
        let alice2 = try second.network.addNode(name: "alice", balanceMsat: 0)
        XCTAssertNotEqual(alice1.identityKey, bob1.identityKey)
        XCTAssertEqual(alice1.identityKey, alice2.identityKey)
        XCTAssertThrowsError(try first.network.addNode(name: "alice", balanceMsat: 0)) {
            XCTAssertEqual($0 as? LightningSimError, .duplicateNode("alice"))
        }
        XCTAssertEqual(first.network.nodes.map(\.name), ["alice", "bob"])
        // Funding stops at 21 million BTC, so no sum of balances can overflow.
        XCTAssertThrowsError(try first.network.addNode(name: "whale", balanceMsat: 2_100_000_000_000_000_001)) {
            XCTAssertEqual($0 as? LightningSimError, .amountTooLarge)
        }
        try first.network.setBalance(node: "bob", balanceMsat: 2_100_000_000_000_000_000)
        XCTAssertThrowsError(try first.network.setBalance(node: "alice", balanceMsat: 1)) {
            XCTAssertEqual($0 as? LightningSimError, .amountTooLarge)
        }
        XCTAssertTrue(first.network.balances().isConserved)
    }

    func testInvoiceForAnotherNetworkIsRefused() throws {
        let world = SimWorld()
        try world.network.addNode(name: "alice", balanceMsat: 1_000_000_000)
        let mainnet = try InvoiceEncoder(currency: .bitcoin, amountMsat: 1_000_000, timestamp: world.now,
                                         paymentHash: SHA256.hash(preimage(1)), paymentSecret: preimage(2),
                                         description: .text("mainnet")).sign(with: PrivateKey(preimage(3)))
        XCTAssertThrowsError(try world.network.decodePaymentRequest(mainnet.string)) {
            XCTAssertEqual($0 as? LightningSimError, .wrongNetwork(prefix: "lnbc"))
            XCTAssertEqual(($0 as? LightningSimError)?.description, "invoice not for current active network 'regtest'")
        }
        XCTAssertThrowsError(try world.network.sendPayment(from: "alice", paymentRequest: mainnet.string,
                                                           feeLimitMsat: 10_000, timeoutSeconds: 60)) {
            XCTAssertEqual($0 as? LightningSimError, .wrongNetwork(prefix: "lnbc"))
        }
    }
}
