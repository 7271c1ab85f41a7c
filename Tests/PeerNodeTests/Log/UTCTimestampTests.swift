import XCTest
@testable import PeerNode

/// The calendar arithmetic behind every ISO 8601 time the node prints (log lines and the
/// CLI's `*_at_iso` fields), checked against dates worked out by Python's `datetime`.
final class UTCTimestampTests: XCTestCase {
    func testKnownMomentsIncludingLeapDaysAndCenturies() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_709_164_800, "2024-02-29T00:00:00Z"),
            (1_796_086_948, "2026-12-01T01:02:28Z"),
            (4_102_444_799, "2099-12-31T23:59:59Z"),
        ]
        for (seconds, expected) in cases {
            XCTAssertEqual(UTCTimestamp(unixSeconds: seconds).iso8601, expected, "\(seconds)")
        }
    }

    func testMillisecondsAndTimesBeforeTheEpoch() {
        XCTAssertEqual(UTCTimestamp(unixMillis: 1_796_086_948_007).iso8601Milliseconds, "2026-12-01T01:02:28.007Z")
        XCTAssertEqual(UTCTimestamp(unixMillis: -1).iso8601Milliseconds, "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(LogLine.timestamp(unixMillis: 86_400_500), "1970-01-02T00:00:00.500Z")
    }
}
