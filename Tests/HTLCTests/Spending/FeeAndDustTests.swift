import Bitcoin
@testable import HTLC
import XCTest

final class FeeAndDustTests: XCTestCase {
    /// Core's GetDustThreshold at the default 3000 sat/kvB dust relay fee.
    func testDustLimitsMatchCore() {
        let expected: [DestinationType: Int64] = [.p2pkh: 546, .p2sh: 540, .p2wpkh: 294, .p2wsh: 330, .p2tr: 330]
        for type in DestinationType.allCases {
            XCTAssertEqual(DustLimit.threshold(for: type), expected[type], "\(type)")
        }
        // Core's older default of 1000 sat/kvB gives a third of each (rounded up).
        XCTAssertEqual(DustLimit.threshold(for: .p2pkh, dustRelayFee: 1000), 182)
    }

    func testFeeIsRoundedUp() throws {
        XCTAssertEqual(try FeeRate(satPerKvB: 1000).fee(forVirtualSize: 140), 140)
        XCTAssertEqual(try FeeRate(satPerKvB: 1001).fee(forVirtualSize: 140), 141) // 140.14 -> 141
        XCTAssertEqual(try FeeRate(satPerKvB: 2500).fee(forVirtualSize: 139), 348) // 347.5 -> 348
        XCTAssertEqual(try FeeRate(satPerKvB: 0).fee(forVirtualSize: 139), 0)
        XCTAssertEqual(try FeeRate(satPerVByte: 7).satPerKvB, 7000)
        XCTAssertThrows(.invalidFeeRate(satPerKvB: -1), try FeeRate(satPerKvB: -1))
        XCTAssertThrows(.invalidFeeRate(satPerKvB: FeeRate.maximumSatPerKvB + 1),
                        try FeeRate(satPerKvB: FeeRate.maximumSatPerKvB + 1))
        XCTAssertThrows(.invalidFeeRate(satPerKvB: .max), try FeeRate(satPerVByte: .max))
    }

    func testDestinationTypes() throws {
        for type in DestinationType.allCases {
            let address = Fixture.destination(type)
            XCTAssertEqual(try DestinationType(address: address), type)
            XCTAssertEqual(address.scriptPubKey.count, type.scriptPubKeySize)
            XCTAssertEqual(type.placeholderScript.count, type.scriptPubKeySize)
        }
        XCTAssertThrows(.unsupportedDestination,
                        try DestinationType(address: try Address(witnessVersion: 2, program: [1, 2, 3, 4])))
    }
}
