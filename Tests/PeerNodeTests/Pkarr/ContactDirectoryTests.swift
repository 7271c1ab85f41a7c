import Foundation
import Offers
import PeerNode
import Regtest
import Transport
import XCTest

/// The contact directory against two real relays (the hub's, on loopback): the newest
/// verified packet wins, a stale or forged relay never turns a contact back, a relay that is
/// down costs only its answer, the cache holds for the TTL, and a restart keeps the newest.
final class ContactDirectoryTests: XCTestCase {
    private let carol = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0x51, count: 32)))

    private struct World {
        let loop: EventLoop
        let relays: [PkarrRelayService]
        let http: HTTPClient
        let store: SQLiteSwapStore
        let clock: ClientTestClock
        var urls: [PkarrRelayURL] { relays.map { try! PkarrRelayURL($0.url) } }

        func directory() async -> ContactDirectory {
            await ContactDirectory(relays: PkarrRelays(urls: urls, client: PkarrRelayClient(http: http, timeoutMilliseconds: 2_000)),
                                   store: store, clock: clock)
        }

        func close() async {
            await http.shutDown()
            for relay in relays { await relay.stop() }
            await loop.shutdown()
        }
    }

    private func world(path: String? = nil) async throws -> World {
        let loop = try EventLoop()
        var relays: [PkarrRelayService] = []
        for _ in 0..<2 { relays.append(try await PkarrRelayService.start(loop: loop)) }
        let store = try path.map { try SQLiteSwapStore.open(path: $0) } ?? SQLiteSwapStore.openInMemory()
        return World(loop: loop, relays: relays, http: HTTPClient(loop: loop), store: store, clock: ClientTestClock(1_000))
    }

    private func publish(port: UInt16, timestamp: UInt64, to relays: [PkarrRelayService]) throws -> SignedPacket {
        let packet = try SignedPacket.sign(PeernodeRecords.nodePacket(node: carol.pubky, hosts: ["127.0.0.1"], port: port, ttl: 60),
                                           by: carol, timestamp: timestamp)
        for relay in relays {
            let reply = relay.relay.respond(to: HTTPRequest(method: .put, target: "/" + carol.pubky.z32, body: packet.relayPayload))
            XCTAssertEqual(reply.status, .noContent)
        }
        return packet
    }

    func testTheNewestVerifiedPacketWinsAndNothingOlderOrForgedReplacesIt() async throws {
        let world = try await world()
        let directory = await world.directory()
        _ = try publish(port: 9001, timestamp: 100, to: world.relays)
        // Relay 1 learns a newer one; relay 0 does not.
        _ = try publish(port: 9002, timestamp: 200, to: [world.relays[1]])
        let first = try await directory.resolve(carol.pubky).get()
        XCTAssertEqual(first.endpoint.port, 9002, "the newest answer among the relays")

        // Relay 1 now serves a stale packet and relay 0 a forged one: neither turns carol back.
        try await world.relays[1].setMode(.stale)
        try await world.relays[0].setMode(.forged)
        let again = try await directory.resolve(carol.pubky, refresh: true).get()
        XCTAssertEqual(again.endpoint.port, 9002)
        let counters = await directory.counters
        XCTAssertEqual(counters.answersRefused, 1, "the forged packet failed verification")
        XCTAssertEqual(counters.olderIgnored, 2, "relay 0's first answer and relay 1's stale one were older than the newest")
        await world.close()
    }

    func testARelayThatIsDownCostsOnlyItsAnswer() async throws {
        let world = try await world()
        let directory = await world.directory()
        _ = try publish(port: 9001, timestamp: 100, to: [world.relays[1]])
        try await world.relays[0].setMode(.down)
        let resolved = try await directory.resolve(carol.pubky).get()
        XCTAssertEqual(resolved.endpoint.port, 9001)
        // Both down, never seen: no packet, each relay's answer named.
        let dave = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x52, count: 32)))
        try await world.relays[1].setMode(.down)
        let missing = await directory.resolve(dave.pubky)
        guard case .failure(.noPacket(_, let why)) = missing else { return XCTFail("\(missing)") }
        XCTAssertTrue(why.contains("unreachable"), why)
        // Carol's packet held is still used while every relay is down, however old.
        world.clock.advance(by: 3_600)
        let held = try await directory.resolve(carol.pubky, refresh: true).get()
        XCTAssertEqual(held.endpoint.port, 9001)
        await world.close()
    }

    func testTheCacheHoldsForTheTTLThenAsksAgain() async throws {
        let world = try await world()
        let directory = await world.directory()
        _ = try publish(port: 9001, timestamp: 100, to: world.relays)
        _ = try await directory.resolve(carol.pubky).get()
        let asked = world.relays.map(\.relay.counters.gets)
        _ = try publish(port: 9002, timestamp: 200, to: world.relays)
        world.clock.advance(by: 59)
        let cached = try await directory.resolve(carol.pubky).get()
        XCTAssertEqual(cached.endpoint.port, 9001, "within the 60 s TTL nothing is asked")
        XCTAssertEqual(world.relays.map(\.relay.counters.gets), asked)
        world.clock.advance(by: 1)
        let fresh = try await directory.resolve(carol.pubky).get()
        XCTAssertEqual(fresh.endpoint.port, 9002)
        await world.close()
    }

    func testARestartKeepsTheNewestPacket() async throws {
        let path = NSTemporaryDirectory() + "peernode-directory-\(UUID().uuidString).sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var world = try await world(path: path)
        _ = try publish(port: 9002, timestamp: 200, to: world.relays)
        _ = try await (await world.directory()).resolve(carol.pubky).get()
        await world.store.close()
        await world.close()

        // After the restart the relays only hold an older packet (a replay).
        world = try await self.world(path: path)
        _ = try publish(port: 9001, timestamp: 100, to: world.relays)
        let resolved = try await (await world.directory()).resolve(carol.pubky, refresh: true).get()
        XCTAssertEqual(resolved.endpoint.port, 9002, "the store kept the newer packet")
        await world.store.close()
        await world.close()
    }
}
