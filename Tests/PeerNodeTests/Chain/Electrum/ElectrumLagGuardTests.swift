@testable import PeerNode
import XCTest

/// The verdict on a server's tip against LND's: a short or small gap is an indexing delay,
/// a gap of 3 blocks that lasts the grace is a server that stopped following.
final class ElectrumLagGuardTests: XCTestCase {
    func testAGapBelowTheLimitOrNoReferenceIsFollowing() {
        var lag = ElectrumLagGuard(maxBlocks: 3, graceMilliseconds: 10_000)
        XCTAssertEqual(lag.observe(serverHeight: 100, referenceHeight: 102, now: 0), .following)
        XCTAssertEqual(lag.observe(serverHeight: 100, referenceHeight: 102, now: 60_000), .following, "2 behind for a minute")
        XCTAssertEqual(lag.observe(serverHeight: 105, referenceHeight: 100, now: 61_000), .following, "ahead of LND")
        XCTAssertEqual(lag.observe(serverHeight: 100, referenceHeight: nil, now: 62_000), .following, "LND did not answer")
    }

    func testAGapOfThreeBlocksIsALagOnlyOnceItOutlastsTheGrace() {
        var lag = ElectrumLagGuard(maxBlocks: 3, graceMilliseconds: 10_000)
        XCTAssertEqual(lag.observe(serverHeight: 100, referenceHeight: 103, now: 1_000), .catchingUp(blocks: 3))
        XCTAssertEqual(lag.observe(serverHeight: 100, referenceHeight: 105, now: 10_999), .catchingUp(blocks: 5))
        XCTAssertEqual(lag.observe(serverHeight: 100, referenceHeight: 105, now: 11_000), .lagging(blocks: 5, milliseconds: 10_000))
        XCTAssertEqual(lag.observe(serverHeight: 101, referenceHeight: 105, now: 20_000), .lagging(blocks: 4, milliseconds: 19_000),
                       "a block indexed does not restart the clock while the gap stays")
    }

    func testTheClockRestartsWhenTheGapCloses() {
        var lag = ElectrumLagGuard(maxBlocks: 3, graceMilliseconds: 10_000)
        _ = lag.observe(serverHeight: 100, referenceHeight: 110, now: 0)
        XCTAssertEqual(lag.observe(serverHeight: 109, referenceHeight: 110, now: 9_000), .following)
        XCTAssertNil(lag.behindSince)
        XCTAssertEqual(lag.observe(serverHeight: 109, referenceHeight: 112, now: 12_000), .catchingUp(blocks: 3),
                       "a new gap starts its own grace")
        XCTAssertEqual(lag.observe(serverHeight: 109, referenceHeight: 112, now: 22_000), .lagging(blocks: 3, milliseconds: 10_000))
    }
}
