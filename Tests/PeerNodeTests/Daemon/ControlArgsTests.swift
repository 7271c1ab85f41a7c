import HTLC
import Transport
import XCTest
@testable import PeerNode

/// Fee rates take decimals (issue 14: `--fee-rate 1.5` was refused although rates are
/// decimal): up to 3 places, a whole sat per kvB.
final class ControlArgsTests: XCTestCase {
    private func rate(_ value: JSONValue) throws(ControlError) -> FeeRate? {
        try ControlArgs(command: "wallet.send", value: .object(["fee_rate_sat_vb": value])).optionalFeeRate("fee_rate_sat_vb")
    }

    func testFeeRatesTakeUpToThreeDecimals() throws {
        XCTAssertEqual(try rate(.number("1.5"))?.satPerKvB, 1_500)
        XCTAssertEqual(try rate(.number("2"))?.satPerKvB, 2_000)
        XCTAssertEqual(try rate(.number("0.001"))?.satPerKvB, 1)
        XCTAssertEqual(try rate(.number("10000"))?.satPerKvB, 10_000_000)
        XCTAssertNil(try rate(.null))
        for bad: JSONValue in [.number("0"), .number("1.2345"), .number("-1"), .number("10000.001"), .string("2"), .number("1e3")] {
            XCTAssertThrowsError(try rate(bad), "\(bad)") { error in
                XCTAssertEqual((error as? ControlError)?.code, ControlError.Code.invalidRequest)
                XCTAssertTrue((error as? ControlError)?.message.contains("sat/vB") == true, "\(error)")
            }
        }
    }
}
