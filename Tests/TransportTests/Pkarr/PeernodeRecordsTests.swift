import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// peernode's records in a pkarr zone, the identity-to-node delegation, resolution (one hop,
/// nothing but signed records) and the newest-wins packet book.
final class PeernodeRecordsTests: XCTestCase {
    private let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x11, count: 32)))
    private let node = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x22, count: 32)))

    private func nodePacket(port: UInt16 = 40_000, timestamp: UInt64 = 1_000, hosts: [String] = ["127.0.0.1"]) throws -> SignedPacket {
        try SignedPacket.sign(PeernodeRecords.nodePacket(node: node.pubky, hosts: hosts, port: port, ttl: 60),
                              by: node, timestamp: timestamp)
    }

    func testTheNodePacketNamesItsEndpoint() throws {
        let packet = try nodePacket(hosts: ["not-an-ip", "::1", "192.0.2.9"])
        XCTAssertEqual(PeernodeRecords.endpoint(in: packet), .init(host: "192.0.2.9", port: 40_000), "an A record before AAAA")
        XCTAssertNil(PeernodeRecords.delegate(in: packet))
        XCTAssertEqual(try nodePacket(hosts: ["::1"]).packet.answers.count, 2)
        XCTAssertEqual(PeernodeRecords.endpoint(in: try nodePacket(hosts: ["::1"])), .init(host: "::1", port: 40_000))
        XCTAssertNil(PeernodeRecords.endpoint(in: try nodePacket(hosts: [])), "a port without an address is no endpoint")
    }

    func testADelegationKeepsTheIdentitysOtherRecordsAndReplacesItsPeernodeRecord() throws {
        let zone = SignedPacket.zone(of: identity.pubky)
        let homeserver = DNSRecord(name: try zone.child("_pubky"), ttl: 3600,
                                   data: .svcb(.alias(to: try DNSName("homeserver.example"))))
        let old = DNSRecord(name: PeernodeRecords.serviceName(of: identity.pubky), ttl: 60, data: .svcb(.endpoint(port: 1)))
        let existing = try SignedPacket.sign(DNSPacket(answers: [homeserver, old]), by: identity, timestamp: 5)
        let packet = PeernodeRecords.delegationPacket(identity: identity.pubky, node: node.pubky, ttl: 3600, existing: existing)
        XCTAssertEqual(packet.answers.count, 2)
        XCTAssertEqual(packet.answers[0], homeserver)
        let signed = try SignedPacket.sign(packet, by: identity, timestamp: 6)
        XCTAssertEqual(PeernodeRecords.delegate(in: signed), node.pubky)
        XCTAssertNil(PeernodeRecords.endpoint(in: signed))
    }

    func testResolutionFollowsOneHopToTheNodeKey() async throws {
        let delegation = try SignedPacket.sign(
            PeernodeRecords.delegationPacket(identity: identity.pubky, node: node.pubky, ttl: 3600, existing: nil),
            by: identity, timestamp: 1)
        let packets = [identity.pubky: delegation, node.pubky: try nodePacket()]
        let result = await PeernodeResolution.resolve(identity.pubky) { key in
            packets[key].map { .success($0) } ?? .failure(.noPacket(key, "404"))
        }
        let resolved = try result.get()
        XCTAssertEqual(resolved.identity, identity.pubky)
        XCTAssertEqual(resolved.nodeKey, node.pubky)
        XCTAssertEqual(resolved.endpoint, .init(host: "127.0.0.1", port: 40_000))
        XCTAssertEqual(resolved.ttlSeconds, 60)

        // The node key alone resolves to itself.
        let direct = try await PeernodeResolution.resolve(node.pubky) { key in
            packets[key].map { .success($0) } ?? .failure(.noPacket(key, "404"))
        }.get()
        XCTAssertEqual(direct.nodeKey, node.pubky)
    }

    func testAChainOfDelegationsIsNotFollowedPastOneHop() async throws {
        // identity -> node -> third: the node's packet delegates again instead of naming an endpoint.
        let third = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x33, count: 32)))
        let first = try SignedPacket.sign(
            PeernodeRecords.delegationPacket(identity: identity.pubky, node: node.pubky, ttl: 60, existing: nil), by: identity, timestamp: 1)
        let second = try SignedPacket.sign(
            PeernodeRecords.delegationPacket(identity: node.pubky, node: third.pubky, ttl: 60, existing: nil), by: node, timestamp: 1)
        let packets = [identity.pubky: first, node.pubky: second]
        let result = await PeernodeResolution.resolve(identity.pubky) { key in
            packets[key].map { .success($0) } ?? .failure(.noPacket(key, "404"))
        }
        XCTAssertEqual(result, .failure(.noEndpoint(node.pubky)))
    }

    func testAPacketWithoutPeernodeRecordsIsNotAPeernode() async throws {
        let empty = try SignedPacket.sign(DNSPacket(answers: []), by: identity, timestamp: 1)
        let result = await PeernodeResolution.resolve(identity.pubky) { _ in .success(empty) }
        XCTAssertEqual(result, .failure(.notAPeernode(identity.pubky)))
        XCTAssertEqual("\(PeernodeResolution.Failure.notAPeernode(identity.pubky))",
                       "the pkarr packet of \(identity.pubky.z32.prefix(8))… names no peernode (_peernode record)")
    }

    /// A self-delegation (the identity naming itself) is ignored, not followed in a loop.
    func testAnAliasToItselfIsNotADelegation() throws {
        let packet = try SignedPacket.sign(
            PeernodeRecords.delegationPacket(identity: identity.pubky, node: identity.pubky, ttl: 60, existing: nil),
            by: identity, timestamp: 1)
        XCTAssertNil(PeernodeRecords.delegate(in: packet))
    }

    func testTheBookKeepsTheNewestAndNeverGoesBack() throws {
        var book = PkarrPacketBook()
        let older = try nodePacket(port: 1, timestamp: 100)
        let newer = try nodePacket(port: 2, timestamp: 200)
        XCTAssertTrue(book.offer(newer, atUnix: 10))
        XCTAssertFalse(book.offer(older, atUnix: 11), "an older packet never replaces a newer one")
        XCTAssertEqual(book.packet(for: node.pubky), newer)
        XCTAssertEqual(book.entries[node.pubky]?.fetchedAtUnix, 10)
        XCTAssertFalse(book.offer(newer, atUnix: 50))
        XCTAssertEqual(book.entries[node.pubky]?.fetchedAtUnix, 50, "the same packet again refreshes its time")
        XCTAssertTrue(book.isFresh(node.pubky, nowUnix: 109))
        XCTAssertFalse(book.isFresh(node.pubky, nowUnix: 110), "fresh for its TTL (60 s) after the last fetch")
        XCTAssertFalse(book.isFresh(identity.pubky, nowUnix: 0))
    }

    func testRelayURLs() throws {
        let relay = try PkarrRelayURL("http://127.0.0.1:8080/pkarr/")
        XCTAssertEqual(relay.host, "127.0.0.1")
        XCTAssertEqual(relay.port, 8080)
        XCTAssertEqual(relay.target(for: node.pubky), "/pkarr/" + node.pubky.z32)
        XCTAssertEqual(relay.description, "http://127.0.0.1:8080/pkarr")
        XCTAssertEqual(try PkarrRelayURL("http://[::1]:81").host, "::1")
        XCTAssertEqual(try PkarrRelayURL("http://relay.example").port, 80)
        for bad in ["https://relay.pkarr.org", "ftp://x", "http://", "http://host:0", "http://host:99999", "http://host/x?y",
                    "http://user@host", "http://[::1"] {
            XCTAssertThrowsError(try PkarrRelayURL(bad), bad)
        }
    }
}
