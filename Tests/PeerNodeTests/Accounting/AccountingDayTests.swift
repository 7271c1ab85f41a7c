@testable import PeerNode
import XCTest

/// UTC days: the report's key and `--since`'s form, independent of the machine's zone.
final class AccountingDayTests: XCTestCase {
    func testDaysRoundTripThroughUnixTime() throws {
        XCTAssertEqual(try AccountingDay(parsing: "2026-12-01").startUnix, 1_796_083_200)
        XCTAssertEqual(try AccountingDay(parsing: "2024-02-29").startUnix, 1_709_164_800)
        XCTAssertEqual(AccountingDay(unix: 1_796_083_200 + 86_399).description, "2026-12-01")
        XCTAssertEqual(AccountingDay(unix: 1_796_083_200 - 1).description, "2026-11-30")
        XCTAssertEqual(AccountingDay(unix: -1).description, "1969-12-31")
        XCTAssertEqual(AccountingDay(unix: 0).description, "1970-01-01")
    }

    func testAnythingButARealDayIsRefused() {
        for text in ["2026-13-01", "2026-2-01", "2026-02-30", "2025-02-29", "yesterday", "", "2026-12-01T00:00", "+026-12-01",
                     "２０２６-12-01"] {
            XCTAssertThrowsError(try AccountingDay(parsing: text), text) { error in
                XCTAssertEqual(error as? AccountingError, .badSince(text))
            }
        }
    }
}
