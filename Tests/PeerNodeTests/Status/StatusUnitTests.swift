@testable import PeerNode
import Transport
import XCTest

/// The status API's pure parts: sessions and their expiry, the token comparison, the
/// Prometheus writer's escaping and amounts.
final class StatusUnitTests: XCTestCase {
    func testSessionsExpireAfterTheirLifetimeAndStayBounded() {
        let clock = ManualTime(1_000)
        let sessions = StatusSessions(lifetimeSeconds: 900) { clock.now }
        let id = sessions.open()
        XCTAssertEqual(id.count, 64)
        XCTAssertTrue(sessions.isValid(id))
        XCTAssertFalse(sessions.isValid(String(id.reversed())))
        XCTAssertFalse(sessions.isValid(""))
        clock.now = 1_899
        XCTAssertTrue(sessions.isValid(id))
        clock.now = 1_900
        XCTAssertFalse(sessions.isValid(id), "a session lives 15 minutes")
        clock.now = 2_000
        let first = sessions.open()
        for _ in 0..<StatusSessions.capacity { _ = sessions.open() }
        XCTAssertFalse(sessions.isValid(first), "the oldest session makes room")
    }

    func testTokenMatchesOnlyItselfAndTheAuthHeaderParsing() {
        let token = StatusToken.random()
        XCTAssertTrue(token.matches(token.hex))
        XCTAssertFalse(token.matches(String(token.hex.dropLast()) + (token.hex.last == "0" ? "1" : "0")))
        XCTAssertFalse(token.matches(token.hex + "0"))
        XCTAssertFalse(token.matches(""))
        XCTAssertNotEqual(StatusToken.random().hex, token.hex)
        XCTAssertEqual(StatusAuth.bearer(["Authorization": "bearer abc"]), "abc")
        XCTAssertNil(StatusAuth.bearer(["Authorization": "Basic abc"]))
        XCTAssertEqual(StatusAuth.cookie("peernode_status", in: ["Cookie": "a=1; peernode_status=xyz; b=2"]), "xyz")
        XCTAssertNil(StatusAuth.cookie("peernode_status", in: ["Cookie": "xpeernode_status=xyz"]))
        XCTAssertEqual(StatusAuth.formField("token", in: Array("x=1&token=ab12".utf8)), "ab12")
    }

    func testASwapTwelveBlocksOrFewerFromItsTimeoutNeedsAttention() {
        XCTAssertNil(StatusAttention.deadline(swapID: "s", role: "provider", stage: "lock_broadcast", timeoutHeight: 213, tip: 200))
        let near = StatusAttention.deadline(swapID: "s", role: "provider", stage: "lock_broadcast", timeoutHeight: 212, tip: 200)
        XCTAssertEqual(near?.kind, "swap_deadline")
        XCTAssertEqual(near?.blocksLeft, 12)
        XCTAssertEqual(near?.detail, "swap s (provider, lock_broadcast) is 12 blocks from its timeout at height 212")
        let past = StatusAttention.deadline(swapID: "s", role: "client", stage: "claim_broadcast", timeoutHeight: 198, tip: 200)
        XCTAssertEqual(past?.blocksLeft, -2)
        XCTAssertEqual(past?.detail, "swap s (client, claim_broadcast) is past its timeout at height 198 by 2 blocks")
        XCTAssertNil(StatusAttention.deadline(swapID: "s", role: "client", stage: "quoted", timeoutHeight: nil, tip: 200))
    }

    /// `peernode_swaps_total` never goes down: a reverse client swap counted `failed` when
    /// it ended stays so when its held payment is settled later (the books' `lost`), and
    /// the separate counter takes it; a provider's or a submarine client's `lost` was
    /// written by its final event and counts as such.
    func testASwapSettledAfterItsEndStaysCountedAsItEnded() {
        func entry(_ role: SwapRole, _ outcome: AccountingOutcome) -> SwapAccountingEntry {
            SwapAccountingEntry(id: "s", role: role, purpose: "p", peer: "x", createdAt: 0, endedAt: 1, outcome: outcome,
                                amountSat: 1_000, routingFeeMsat: nil)
        }
        XCTAssertEqual(StatusMetrics.countedOutcome(entry(.client, .lost), submarine: false), .failed)
        XCTAssertTrue(StatusMetrics.settledAfterItsEnd(entry(.client, .lost), submarine: false))
        XCTAssertEqual(StatusMetrics.countedOutcome(entry(.client, .lost), submarine: true), .lost)
        XCTAssertFalse(StatusMetrics.settledAfterItsEnd(entry(.client, .lost), submarine: true))
        XCTAssertEqual(StatusMetrics.countedOutcome(entry(.provider, .lost), submarine: false), .lost)
        XCTAssertEqual(StatusMetrics.countedOutcome(entry(.client, .completed), submarine: false), .completed)
        XCTAssertFalse(StatusMetrics.settledAfterItsEnd(entry(.client, .failed), submarine: false))
    }

    func testPrometheusTextEscapesAndWritesMsatAsSat() {
        var text = PrometheusText()
        text.family("a_total", .counter, "help with \\ and\nnewline", [([("k", "v\"q\\")], "1")])
        XCTAssertEqual(text.text, "# HELP a_total help with \\\\ and\\nnewline\n# TYPE a_total counter\na_total{k=\"v\\\"q\\\\\"} 1\n")
        XCTAssertEqual(PrometheusText.sat(fromMsat: 1_234_567), "1234.567")
        XCTAssertEqual(StatusMetrics.snakeCase("connectionsPerNetworkGroup"), "connections_per_network_group")
        XCTAssertEqual(PrometheusText.sat(fromMsat: 5), "0.005")
        XCTAssertEqual(PrometheusText.sat(fromMsat: -2_500), "-2.500")
        let histogram = LatencyHistogram(boundsSeconds: [0.01, 0.1])
        histogram.record(nanoseconds: 5_000_000)
        histogram.record(nanoseconds: 50_000_000)
        histogram.record(nanoseconds: 5_000_000_000)
        XCTAssertEqual(histogram.snapshot.cumulativeCounts, [1, 2])
        XCTAssertEqual(histogram.snapshot.count, 3)
        XCTAssertEqual(histogram.snapshot.sumNanoseconds, 5_055_000_000)
    }
}

private final class ManualTime: @unchecked Sendable {
    var now: Int64
    init(_ now: Int64) { self.now = now }
}
