import Foundation
import Offers
@testable import PeerNode
import Transport
import XCTest

/// `recover` through the daemon's control socket: a node whose seed never swapped finds
/// nothing, and malformed parameters are refused before anything is written.
final class RecoveryControlTests: XCTestCase {
    func testRecoverOverTheControlSocket() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("node", config: fixture.hubConfig + ["provider=0"])
        let node = try await fixture.start(datadir)
        do {
            let scan = try await node.result("recover")
            XCTAssertEqual(scan["from_height"], .integer(0))
            XCTAssertEqual(scan["found"], .array([]))
            XCTAssertEqual(scan["indexes_searched"], .integer(Int64(RecoveryScanner.defaultGapLimit)))
            XCTAssertNil(scan["recreated"])
            XCTAssertEqual(scan["contacts"], .array([]), "no saved contact to ask")

            let quiet = try await node.result("recover", ["ask_contacts": .bool(false)])
            XCTAssertNil(quiet["contacts"], "--no-contacts asks nobody")
            let badFlag = try await node.call("recover", ["ask_contacts": .string("yes")])
            XCTAssertEqual(badFlag.failureCode, "invalid_request")

            let narrow = try await node.result("recover", ["gap_limit": .integer(5)])
            XCTAssertEqual(narrow["indexes_searched"], .integer(5))

            let negative = try await node.call("recover", ["from_height": .integer(-1)])
            XCTAssertEqual(negative.failureCode, "invalid_request")
            let noRole = try await node.call("recover", ["contract": .object(["swap_index": .integer(0)])])
            XCTAssertEqual(noRole.failureCode, "invalid_request")
            XCTAssertTrue(noRole.failureMessage.contains("role"), noRole.failureMessage)
            let noAccept = try await node.call("recover", ["contract": .object([
                "role": .string("client"), "swap_index": .integer(0)])])
            XCTAssertEqual(noAccept.failureCode, "invalid_request")
            XCTAssertTrue(noAccept.failureMessage.contains("SwapAccept"), noAccept.failureMessage)
            // A submarine swap's shape (its accept says onchain_to_ln) is read as one, and
            // refused: the refund key is not this node's.
            let fixture = SubmarineClientFixture()
            let contact = Offers.Contact(pubky: SubmarineClientFixture.provider.pubky, host: "127.0.0.1", port: 1, name: "p")
            let terms = SubmarineClientRecord(provider: contact,
                                              quote: Signed(signing: fixture.quote, with: SubmarineClientFixture.provider),
                                              request: fixture.request, invoicePaymentHash: SubmarineClientFixture.paymentHash,
                                              network: .regtest, ownInvoice: false)
            let notOurs = try await node.call("recover", ["contract": .object([
                "role": .string("client"), "swap_index": .integer(0), "terms": terms.json,
                "accept": fixture.signed(fixture.accept).json])])
            XCTAssertEqual(notOurs.failureCode, "invalid_request")
            XCTAssertTrue(notOurs.failureMessage.contains("refund key is not ours"), notOurs.failureMessage)
            let swaps = try await node.result("swaps")["swaps"]
            XCTAssertEqual(swaps, .array([]), "refused parameters write nothing")
        } catch {
            try? await node.stop()
            await fixture.shutDown()
            throw error
        }
        try await node.stop()
        await fixture.shutDown()
    }
}
