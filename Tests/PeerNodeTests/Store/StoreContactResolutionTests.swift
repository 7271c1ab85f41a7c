import Transport
import XCTest
@testable import PeerNode

/// Schema v3: a contact's node key and whether its address follows its pkarr packet, the
/// lookup of a peer by the key it proved, and the packets kept across restarts.
final class StoreContactResolutionTests: XCTestCase {
    func testANodeKeyIsKeptAndLooksTheContactUp() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let identity = StoreFixture.pubky(2), node = StoreFixture.pubky(3)
        let carol = try SavedContact(pubky: identity, name: "carol", host: "127.0.0.1", port: 9000, addedAt: 1,
                                     nodeKey: node, resolved: true)
        try await store.add(carol)
        let stored = try await store.contact(pubky: identity)
        XCTAssertEqual(stored, carol)
        XCTAssertEqual(stored?.nodeKey, node)
        let byNode = try await store.contact(nodeKey: node)
        XCTAssertEqual(byNode, carol)
        let byIdentity = try await store.contact(nodeKey: identity)
        XCTAssertNil(byIdentity, "the identity is not the key its node proves")
        // A contact without a node key is found by its pubky as a node key.
        let bob = try SavedContact(pubky: StoreFixture.pubky(4), name: "bob", host: "127.0.0.1", port: 9001, addedAt: 1)
        try await store.add(bob)
        let bobByKey = try await store.contact(nodeKey: StoreFixture.pubky(4))
        XCTAssertEqual(bobByKey, bob)
        XCTAssertEqual(bob.nodeKey, bob.pubky)
        XCTAssertFalse(bob.resolved)
    }

    func testAResolutionMovesOnlyAnAddressThatFollowsThePacket() async throws {
        let store = try SQLiteSwapStore.openInMemory()
        let followed = try SavedContact(pubky: StoreFixture.pubky(2), name: "carol", host: "127.0.0.1", port: 9000, addedAt: 1,
                                        resolved: true)
        let typed = try SavedContact(pubky: StoreFixture.pubky(4), name: "bob", host: "10.0.0.1", port: 9001, addedAt: 1)
        try await store.add(followed)
        try await store.add(typed)
        try await store.updateResolution(pubky: StoreFixture.pubky(2), nodeKey: StoreFixture.pubky(3), host: "127.0.0.2", port: 9100)
        try await store.updateResolution(pubky: StoreFixture.pubky(4), nodeKey: StoreFixture.pubky(5), host: "127.0.0.2", port: 9100)
        let storedCarol = try await store.contact(pubky: StoreFixture.pubky(2))
        let carol = try XCTUnwrap(storedCarol)
        XCTAssertEqual([carol.host, String(carol.port)], ["127.0.0.2", "9100"])
        XCTAssertEqual(carol.nodeKey, StoreFixture.pubky(3))
        let storedBob = try await store.contact(pubky: StoreFixture.pubky(4))
        let bob = try XCTUnwrap(storedBob)
        XCTAssertEqual([bob.host, String(bob.port)], ["10.0.0.1", "9001"], "a typed address is never overwritten")
        XCTAssertEqual(bob.nodeKey, StoreFixture.pubky(5), "the node key follows the identity's record either way")
    }

    func testPacketsAreKeptAndReVerified() async throws {
        let path = try StoreFixture.directory(for: self) + "/node.sqlite"
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 9, count: 32)))
        let packet = try SignedPacket.sign(PeernodeRecords.nodePacket(node: identity.pubky, hosts: ["127.0.0.1"], port: 1, ttl: 60),
                                           by: identity, timestamp: 7)
        do {
            let store = try SQLiteSwapStore.open(path: path)
            try await store.savePkarrPacket(packet, fetchedAt: 100)
            await store.close()
        }
        // A row whose bytes no longer verify is left out when read.
        let raw = try SQLiteConnection(path: path)
        try raw.execute("INSERT INTO pkarr_packets (pubky, packet, fetched_at) VALUES ('x', x'00', 1)")
        raw.close()
        let reopened = try SQLiteSwapStore.open(path: path)
        let kept = try await reopened.pkarrPackets()
        XCTAssertEqual(kept.map(\.packet), [packet])
        XCTAssertEqual(kept.map(\.fetchedAt), [100])
        await reopened.close()
    }
}
