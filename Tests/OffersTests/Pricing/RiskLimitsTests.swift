@testable import Offers
import Transport
import XCTest

final class RiskLimitsTests: XCTestCase {
    private let alice = Fixtures.client.pubky
    private let bob = Fixtures.stranger.pubky

    func testDefaults() {
        let settings = RiskLimits.Settings()
        XCTAssertEqual(settings.maxConcurrentSwaps, 100)
        XCTAssertEqual(settings.maxConcurrentSwapsPerPeer, 5)
        XCTAssertEqual(settings.maxExposureSat, 10_000_000)
        XCTAssertEqual(settings.maxExposurePerPeerSat, 2_000_000)
        XCTAssertEqual(settings.maxNewSwapsPerPeerPerHour, 20)
    }

    func testConcurrentSwapsInTotalAndPerPeer() throws {
        var limits = RiskLimits(settings: .init(maxConcurrentSwaps: 3, maxConcurrentSwapsPerPeer: 2), clock: TestClock())
        try limits.admit(swapID: "a1", peer: alice, amountSat: 10_000)
        try limits.admit(swapID: "a2", peer: alice, amountSat: 10_000)
        XCTAssertOffersError(.riskLimit("concurrent swaps per peer")) { try limits.admit(swapID: "a3", peer: alice, amountSat: 1) }
        try limits.admit(swapID: "b1", peer: bob, amountSat: 10_000)
        XCTAssertOffersError(.riskLimit("concurrent swaps")) { try limits.admit(swapID: "b2", peer: bob, amountSat: 1) }
        XCTAssertNoThrow(try limits.admit(swapID: "a1", peer: alice, amountSat: 10_000), "a resent request counts once")
        limits.release(swapID: "a1")
        XCTAssertNoThrow(try limits.admit(swapID: "a3", peer: alice, amountSat: 1))
        XCTAssertEqual(OffersError.riskLimit("x").rejectCode, .rateLimited)
    }

    func testExposureInTotalAndPerPeer() throws {
        var limits = RiskLimits(settings: .init(maxExposureSat: 1_000_000, maxExposurePerPeerSat: 600_000), clock: TestClock())
        try limits.admit(swapID: "a1", peer: alice, amountSat: 600_000)
        try limits.markPaid(swapID: "a1")
        XCTAssertOffersError(.riskLimit("exposure per peer")) { try limits.admit(swapID: "a2", peer: alice, amountSat: 1) }
        try limits.admit(swapID: "b1", peer: bob, amountSat: 400_000)
        try limits.markPaid(swapID: "b1")
        XCTAssertEqual(limits.exposureSat, 1_000_000)
        XCTAssertEqual(limits.exposureSat(of: alice), 600_000)
        XCTAssertOffersError(.riskLimit("total exposure")) { try limits.admit(swapID: "b2", peer: bob, amountSat: 1) }
    }

    func testNewSwapsPerPeerPerHour() throws {
        let clock = TestClock()
        var limits = RiskLimits(settings: .init(maxNewSwapsPerPeerPerHour: 2), clock: clock)
        try limits.admit(swapID: "a1", peer: alice, amountSat: 1)
        limits.release(swapID: "a1")
        clock.advance(by: 1_000)
        try limits.admit(swapID: "a2", peer: alice, amountSat: 1)
        limits.release(swapID: "a2")
        XCTAssertOffersError(.riskLimit("new swaps per peer per hour")) { try limits.admit(swapID: "a3", peer: alice, amountSat: 1) }
        XCTAssertNoThrow(try limits.check(peer: bob, amountSat: 1), "other peers are not affected")
        clock.advance(by: 2_600) // the first start is now an hour old
        XCTAssertNoThrow(try limits.admit(swapID: "a3", peer: alice, amountSat: 1))
    }

    func testRestoreFromStoredSwaps() throws {
        let clock = TestClock()
        var limits = RiskLimits(settings: .init(maxConcurrentSwapsPerPeer: 2, maxExposureSat: 500_000,
                                                maxNewSwapsPerPeerPerHour: 3), clock: clock)
        try limits.admit(swapID: "old", peer: bob, amountSat: 1)
        try limits.markPaid(swapID: "old")
        limits.restore(from: [
            .init(swapID: "s1", peer: alice, amountSat: 200_000, startedUnix: clock.nowUnix - 4_000),
            .init(swapID: "s2", peer: alice, amountSat: 200_000, startedUnix: clock.nowUnix - 60),
        ])
        // Audit M-4: restoring adds to what is there (a second recover() while swaps run).
        XCTAssertEqual(limits.activeCount, 3, "the restored swaps join the running one")
        XCTAssertEqual(limits.exposureSat, 400_001)
        XCTAssertOffersError(.riskLimit("concurrent swaps per peer")) { try limits.check(peer: alice, amountSat: 1) }
        XCTAssertOffersError(.riskLimit("total exposure")) { try limits.check(peer: bob, amountSat: 100_000) }
        XCTAssertNoThrow(try limits.check(peer: bob, amountSat: 99_999))
        limits.restore(from: [.init(swapID: "s1", peer: alice, amountSat: 200_000, startedUnix: clock.nowUnix - 4_000)])
        XCTAssertEqual(limits.exposureSat, 400_001, "a swap already known is not counted twice")
        limits.release(swapID: "old")
        limits.release(swapID: "s1")
        limits.release(swapID: "s2")
        // Only the start within the hour counts: two more are allowed for alice.
        try limits.admit(swapID: "n1", peer: alice, amountSat: 1)
        try limits.admit(swapID: "n2", peer: alice, amountSat: 1)
        limits.release(swapID: "n1")
        XCTAssertOffersError(.riskLimit("new swaps per peer per hour")) { try limits.admit(swapID: "n3", peer: alice, amountSat: 1) }
    }
}

/// Audit M-5: unpaid accepts are free to ask for, so they must not hold what paying
/// clients need; a peer whose swap was refunded waits before its next.
final class RiskLimitsGriefingTests: XCTestCase {
    private let alice = Fixtures.client.pubky
    private let bob = Fixtures.stranger.pubky

    func testUnpaidAcceptsHoldOnlyASmallShareAndNoExposure() throws {
        let clock = TestClock()
        var limits = RiskLimits(settings: .init(maxExposureSat: 300_000, maxUnpaidPerPeer: 2, maxUnpaidSwaps: 3), clock: clock)
        try limits.admit(swapID: "a1", peer: alice, amountSat: 300_000)
        try limits.admit(swapID: "a2", peer: alice, amountSat: 300_000)
        XCTAssertEqual(limits.exposureSat, 0, "unpaid accepts are no exposure")
        XCTAssertOffersError(.riskLimit("unpaid swaps per peer")) { try limits.admit(swapID: "a3", peer: alice, amountSat: 1) }
        // Another peer is not blocked by alice's unpaid accepts, and pays.
        try limits.admit(swapID: "b1", peer: bob, amountSat: 300_000)
        try limits.markPaid(swapID: "b1")
        XCTAssertEqual(limits.exposureSat, 300_000)
        // Now alice's accepts cannot be paid for: the exposure is taken.
        XCTAssertOffersError(.riskLimit("total exposure")) { try limits.markPaid(swapID: "a1") }
        XCTAssertEqual(limits.exposureSat, 300_000)
        limits.release(swapID: "b1")
        try limits.markPaid(swapID: "a1")
        XCTAssertEqual(limits.exposureSat, 300_000)
        limits.release(swapID: "a1")
        // The global count of unpaid accepts.
        XCTAssertEqual(limits.unpaidCount, 1)
        try limits.admit(swapID: "b2", peer: bob, amountSat: 1)
        try limits.admit(swapID: "b3", peer: bob, amountSat: 1)
        XCTAssertOffersError(.riskLimit("unpaid swaps")) { try limits.admit(swapID: "c1", peer: Fixtures.provider.pubky, amountSat: 1) }
    }

    func testAPeerWhoseSwapWasRefundedWaitsForTheCoolDown() throws {
        let clock = TestClock()
        var limits = RiskLimits(settings: .init(refundCoolDownSeconds: 600), clock: clock)
        limits.coolDown(peer: alice)
        XCTAssertOffersError(.riskLimit("cool-down after a refund (600 s left)")) {
            try limits.admit(swapID: "a1", peer: alice, amountSat: 10_000)
        }
        XCTAssertNoThrow(try limits.admit(swapID: "b1", peer: bob, amountSat: 10_000), "others are not affected")
        clock.advance(by: 600)
        XCTAssertNoThrow(try limits.admit(swapID: "a2", peer: alice, amountSat: 10_000))
    }
}
