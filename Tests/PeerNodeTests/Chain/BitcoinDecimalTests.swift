import PeerNode
import XCTest

/// Core's BTC amounts parsed exactly from their text.
final class BitcoinDecimalTests: XCTestCase {
    func testCoreAmountsAreExactSatoshis() {
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "1.00000000"), 100_000_000)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "0.00002000"), 2_000)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "0.00003003"), 3_003)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "48.99997180"), 4_899_997_180)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "0.1"), 10_000_000, "0.1 BTC is not 9,999,999.99 sat")
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "21000000"), 2_100_000_000_000_000)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "0.00000001"), 1)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "-0.5"), -50_000_000)
        XCTAssertEqual(BitcoinDecimal.satoshis(fromBitcoin: "0.000100000000"), 10_000, "trailing zeros past 8 places")
    }

    func testTextThatIsNotAWholeSatoshiAmountIsRefused() {
        for text in ["", ".", "1.", ".5", "1e-5", "0.000000001", "abc", "1.2.3", "- 1", "+1", "92233720368.54775808"] {
            XCTAssertNil(BitcoinDecimal.satoshis(fromBitcoin: text), text)
        }
    }
}
