import HTLC
import Offers
@testable import PeerNode
import Transport
import XCTest

/// `--contract-type` and `--quote` as the control API reads them, and the error a pay
/// gets when no provider offers the contract type asked for.
final class SwapOptionsTests: XCTestCase {
    private func options(_ args: [String: JSONValue], command: String = "pay", quote: Bool = true) throws -> SwapOptions {
        try ControlArgs(command: command, value: .object(args)).swapOptions(quote: quote)
    }

    func testContractTypeAndQuoteIDAreRead() throws {
        XCTAssertEqual(try options([:]), SwapOptions())
        XCTAssertEqual(try options(["contract_type": .string("p2wsh_v2")]), SwapOptions(contractType: .p2wsh))
        XCTAssertEqual(try options(["contract_type": .string("taproot_boltz"), "quote_id": .string("q1")]),
                       SwapOptions(contractType: .taprootBoltz, quoteID: "q1"))
    }

    func testBadValuesAreRefusedNamingWhatIsAllowed() {
        XCTAssertThrowsError(try options(["contract_type": .string("p2sh")])) { error in
            XCTAssertEqual((error as? ControlError)?.code, ControlError.Code.invalidRequest)
            XCTAssertTrue("\(error)".contains("must be one of taproot_boltz, p2wsh_v2, not \"p2sh\""), "\(error)")
        }
        // The retired layout is refused for a new swap (audit C-1).
        XCTAssertThrowsError(try options(["contract_type": .string("p2wsh")])) { error in
            XCTAssertTrue("\(error)".contains("must be one of taproot_boltz, p2wsh_v2, not \"p2wsh\""), "\(error)")
        }
        XCTAssertThrowsError(try options(["quote_id": .string("q1")], command: "quote", quote: false)) { error in
            XCTAssertEqual((error as? ControlError)?.code, ControlError.Code.invalidRequest)
            XCTAssertTrue("\(error)".contains("only pay commits an earlier quote"), "\(error)")
        }
        XCTAssertThrowsError(try options(["quote_id": .string("")]))
    }

    func testNoRouteNamesTheContractTypeAndEveryProviderProbed() {
        let a = Offers.Contact(pubky: StoreFixture.pubky(1), host: "127.0.0.1", port: 9001, name: "provA")
        let b = Offers.Contact(pubky: StoreFixture.pubky(2), host: "127.0.0.1", port: 9002, name: "provB")
        let reason = SkipReason.contractTypeNotOffered(wanted: .p2wsh, offered: [.taprootBoltz]).description
        let plan = RoutePlan(amountSat: 25_000, ranked: [],
                             skipped: [RoutePlan.Skip(contact: a, reason: reason),
                                       RoutePlan.Skip(contact: b, reason: "runs no provider (it answered not_found)")],
                             candidates: 2, spendingBalanceSat: 500_000, contractType: .p2wsh)
        let error = plan.noRouteError
        XCTAssertEqual(error.code, "no_route")
        XCTAssertEqual(error.message, "no provider can swap 25,000 sat with a p2wsh_v2 contract (skipped provA: offers no p2wsh_v2 "
                       + "contract (it offers taproot_boltz); provB: runs no provider (it answered not_found)); nothing was paid")
        XCTAssertEqual(plan.json["contract_type_asked"], .string("p2wsh_v2"))
    }

    func testAnExpiredQuoteKeepsItsOwnCode() {
        let error = ClientCommands.controlError(.rejected(.quoteExpired, reason: "the quote has expired"))
        XCTAssertEqual(error.code, "quote_expired")
        XCTAssertTrue(error.message.contains("nothing was paid"), error.message)
        XCTAssertEqual(ClientCommands.controlError(.rejected(.unknownQuote, reason: "used")).code, "not_paid")
    }
}
