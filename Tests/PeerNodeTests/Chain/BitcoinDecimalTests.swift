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

    /// Any JSON number, as an Electrum server prints it, rounded away from zero.
    func testNumbersWithExponentsAreExactSatoshisRoundedAwayFromZero() {
        let cases: [(String, Int64)] = [
            ("2e-05", 2_000), ("2E-05", 2_000), ("2e-5", 2_000), ("1.5e-5", 1_500), ("0.00001", 1_000), ("1e-8", 1),
            ("1e-9", 1), ("0.000000001", 1), ("0.000010001", 1_001), ("1.00000001e-5", 1_001), ("3e+2", 30_000_000_000),
            ("3e2", 30_000_000_000), ("0", 0), ("0.0", 0), ("0e-7", 0), ("1", 100_000_000), ("-1", -100_000_000),
            ("-1e-9", -1), ("12345678901234567890e-20", 12_345_679), ("92233720368.54775807", Int64.max),
        ]
        for (text, sats) in cases {
            XCTAssertEqual(BitcoinDecimal.satoshisRoundedAwayFromZero(fromNumber: text), sats, text)
        }
        for text in ["", "-", ".", "1.", ".5", "e5", "1e", "1e+", "1e-", "1.e5", "abc", "1.2.3", "- 1", "+1", "1e5e5",
                     "1e99999", "92233720368.54775808", "92233720368.547758071", "1 ", "0x10"] {
            XCTAssertNil(BitcoinDecimal.satoshisRoundedAwayFromZero(fromNumber: text), text)
        }
    }
}
