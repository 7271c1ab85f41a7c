import XCTest
@testable import Transport

/// The pure eviction policy: who is refused, who is evicted, who is kept.
final class ConnectionBudgetTests: XCTestCase {
    private typealias F = ChannelFixtures

    private func host(_ text: String) -> PeerHost {
        PeerHost(text)!
    }

    private func handshake(_ id: UInt64, _ address: String?, at acceptedAt: UInt64 = 0) -> ConnectionDescriptor {
        ConnectionDescriptor(id: id, host: address.map(host), acceptedAt: acceptedAt)
    }

    private func peer(_ id: UInt64, _ address: String?, pubky: Pubky? = nil, at acceptedAt: UInt64 = 0,
                      latency: UInt64 = 100, idle: UInt64 = 0, protected: Bool = false) -> ConnectionDescriptor {
        ConnectionDescriptor(id: id, host: address.map(host), pubky: pubky ?? F.identity(UInt8(id % 200)).pubky,
                             acceptedAt: acceptedAt, latencyMilliseconds: latency, idleMilliseconds: idle,
                             isProtected: protected)
    }

    private func budget(_ change: (inout PeerLimits) -> Void = { _ in }) -> ConnectionBudget {
        var limits = PeerLimits()
        change(&limits)
        return ConnectionBudget(limits: limits)
    }

    func testDefaults() {
        let limits = PeerLimits()
        XCTAssertEqual([limits.maxHandshakes, limits.maxHandshakesPerHost, limits.maxConnectionsPerHost,
                        limits.maxConnectionsPerNetworkGroup, limits.maxConnectionsPerPubky,
                        limits.maxInboundConnections], [64, 8, 16, 32, 4, 256])
    }

    func testNetworkGroups() {
        XCTAssertEqual(host("127.0.0.2").networkGroup, host("127.0.0.3").networkGroup)
        XCTAssertNotEqual(host("127.0.0.2").networkGroup, host("127.1.0.1").networkGroup)
        XCTAssertNotEqual(host("127.0.0.2"), host("127.0.0.3"))
        XCTAssertEqual(host("2001:db8:1:2::1").networkGroup, host("2001:db8:1:2:ffff::9").networkGroup)
        XCTAssertNotEqual(host("2001:db8:1:2::1").networkGroup, host("2001:db8:1:3::1").networkGroup)
        XCTAssertEqual(host("::ffff:10.0.0.1"), host("10.0.0.1"))
        XCTAssertEqual(host("10.0.0.1").description, "10.0.0.1")
        XCTAssertNil(PeerHost("localhost"))
    }

    func testPerHostCapRefusesTheNewcomerOnly() {
        let existing = (0..<16).map { peer(UInt64($0), "10.0.0.1") }
        XCTAssertEqual(budget().admitHandshake(from: host("10.0.0.1"), among: existing),
                       .refuse(ConnectionRefusal(budget: .connectionsPerHost, limit: 16)))
        XCTAssertEqual(budget().admitHandshake(from: host("10.0.0.2"), among: existing), .admit)
    }

    func testPerHostHandshakeCap() {
        let existing = (0..<8).map { handshake(UInt64($0), "10.0.0.1") }
        XCTAssertEqual(budget().admitHandshake(from: host("10.0.0.1"), among: existing),
                       .refuse(ConnectionRefusal(budget: .handshakesPerHost, limit: 8)))
        XCTAssertEqual(budget().admitHandshake(from: host("10.0.0.2"), among: existing), .admit)
    }

    func testPerNetworkGroupCap() {
        let existing = (0..<32).map { peer(UInt64($0), "10.0.0.\($0 + 1)") }
        XCTAssertEqual(budget().admitHandshake(from: host("10.0.0.200"), among: existing),
                       .refuse(ConnectionRefusal(budget: .connectionsPerNetworkGroup, limit: 32)))
        XCTAssertEqual(budget().admitHandshake(from: host("10.0.1.1"), among: existing), .admit)
    }

    func testStreamsWithoutAnIPCountOnlyAgainstTheTotals() {
        let existing = (0..<20).map { peer(UInt64($0), nil) }
        XCTAssertEqual(budget().admitHandshake(from: nil, among: existing), .admit)
    }

    func testFullHandshakeBudgetEvictsTheOldestOfTheLargestGroup() {
        // 40 from 10.0.0.x (5 hosts), 24 spread over other groups: the newcomer evicts the
        // oldest handshake of 10.0.0.0/24.
        var existing = (0..<40).map { handshake(UInt64($0), "10.0.0.\($0 % 5 + 1)", at: 100 + UInt64($0)) }
        existing += (40..<64).map { handshake(UInt64($0), "10.\($0).0.1", at: UInt64($0)) }
        XCTAssertEqual(budget().admitHandshake(from: host("192.168.1.1"), among: existing),
                       .admitEvicting(id: 0, budget: .handshakes))
        // Authenticated peers do not count against the handshake budget.
        XCTAssertEqual(budget().admitHandshake(from: host("192.168.1.1"),
                                               among: (0..<64).map { peer(UInt64($0), "10.\($0).0.1") }), .admit)
    }

    func testPerPubkyCap() {
        let carol = F.carol.pubky
        let existing = (0..<4).map { peer(UInt64($0), "10.\($0).0.1", pubky: carol) }
        let newcomer = peer(9, "10.9.0.1", pubky: carol)
        XCTAssertEqual(budget().admitPeer(newcomer, among: existing),
                       .refuse(ConnectionRefusal(budget: .connectionsPerPubky, limit: 4)))
        XCTAssertEqual(budget().admitPeer(newcomer, among: Array(existing.dropLast())), .admit)
        XCTAssertEqual(budget().admitPeer(peer(9, "10.9.0.1"), among: existing), .admit)
        // Handshakes in progress have no pubky yet.
        XCTAssertEqual(budget().admitPeer(newcomer, among: (0..<4).map { handshake(UInt64($0), nil) }), .admit)
    }

    func testFullPeerBudgetEvictsTheMostIdleOfTheLargestGroup() {
        let small = budget {
            $0.maxInboundConnections = 6
            $0.evictionProtectLowestLatency = 0
            $0.evictionProtectLongestConnected = 0
        }
        let existing = [
            peer(1, "10.0.0.1", idle: 50), peer(2, "10.0.0.2", idle: 900), peer(3, "10.0.0.3", idle: 10),
            peer(4, "10.1.0.1", idle: 5000), peer(5, "10.2.0.1", idle: 9000), peer(6, "10.1.0.2", idle: 1),
        ]
        XCTAssertEqual(small.admitPeer(peer(7, "10.3.0.1"), among: existing), .admitEvicting(id: 2, budget: .peers))
        XCTAssertEqual(small.admitPeer(peer(7, "10.3.0.1"), among: Array(existing.prefix(5))), .admit)
    }

    func testProtectedPeersAreNeverEvicted() {
        let small = budget {
            $0.maxInboundConnections = 3
            $0.evictionProtectLowestLatency = 0
            $0.evictionProtectLongestConnected = 0
        }
        let existing = [peer(1, "10.0.0.1", at: 1, idle: 900, protected: true), peer(2, "10.0.0.2", at: 5, idle: 10),
                        peer(3, "10.1.0.1", at: 10, idle: 9000)]
        // Without its protected peer 10.0.0.0/24 is no larger than 10.1.0.0/24; the tie goes
        // to the group with the newest connection.
        XCTAssertEqual(small.evictionCandidate(among: existing)?.id, 3)
        let allProtected = existing.map { var d = $0; d.isProtected = true; return d }
        XCTAssertEqual(small.admitPeer(peer(7, "10.3.0.1"), among: allProtected),
                       .refuse(ConnectionRefusal(budget: .peers, limit: 3)))
    }

    func testLowestLatencyAndLongestConnectedAreProtected() {
        let small = budget {
            $0.maxInboundConnections = 4
            $0.evictionProtectLowestLatency = 1
            $0.evictionProtectLongestConnected = 1
        }
        // All in one group. Peer 1 is the fastest, peer 2 the oldest: the most idle of the
        // rest (peer 4) goes, though 1 and 2 are idler.
        let existing = [peer(1, "10.0.0.1", at: 50, latency: 5, idle: 9000),
                        peer(2, "10.0.0.2", at: 1, latency: 300, idle: 8000),
                        peer(3, "10.0.0.3", at: 60, latency: 200, idle: 10),
                        peer(4, "10.0.0.4", at: 70, latency: 200, idle: 700)]
        XCTAssertEqual(small.admitPeer(peer(9, "10.9.0.1"), among: existing), .admitEvicting(id: 4, budget: .peers))
        // With only the two protected ones left, the newcomer is refused.
        XCTAssertEqual(budget {
            $0.maxInboundConnections = 2
            $0.evictionProtectLowestLatency = 1
            $0.evictionProtectLongestConnected = 1
        }.admitPeer(peer(9, "10.9.0.1"), among: Array(existing.prefix(2))),
                       .refuse(ConnectionRefusal(budget: .peers, limit: 2)))
    }

    func testAFloodFromOneGroupIsEvictedBeforeHonestPeers() {
        let small = budget {
            $0.maxInboundConnections = 10
            $0.evictionProtectLowestLatency = 0
            $0.evictionProtectLongestConnected = 0
        }
        // Three honest peers in their own groups, seven attackers in one /24.
        var existing = (0..<3).map { peer(UInt64($0), "10.\($0).0.1", at: UInt64($0), idle: 60_000) }
        existing += (3..<10).map { peer(UInt64($0), "66.6.6.\($0)", at: 100 + UInt64($0), idle: 1) }
        guard case .admitEvicting(let id, .peers) = small.admitPeer(peer(20, "10.20.0.1"), among: existing) else {
            return XCTFail("a full budget evicts")
        }
        XCTAssertTrue((3..<10).contains(id), "the attacker's group loses one, not an honest peer")
    }
}
