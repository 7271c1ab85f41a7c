import Bitcoin
import TestSupport
import Transport
import XCTest
@testable import Regtest

/// The hub's pkarr relay (`design/relays.md`): what it stores, what it refuses and with which
/// status, and the modes a test uses to make it misbehave; over real HTTP on loopback.
final class PkarrRelayTests: XCTestCase {
    private let identity = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 5, count: 32)))

    private func signed(port: UInt16, timestamp: UInt64, ttl: UInt32 = 120) throws -> SignedPacket {
        let zone = SignedPacket.zone(of: identity.pubky)
        let packet = DNSPacket(answers: [
            DNSRecord(name: zone, ttl: ttl, data: .a([127, 0, 0, 1])),
            DNSRecord(name: try zone.child("_peernode"), ttl: ttl * 2, data: .svcb(.endpoint(port: port))),
        ])
        return try SignedPacket.sign(packet, by: identity, timestamp: timestamp)
    }

    private func put(_ relay: PkarrRelay, _ body: [UInt8], key: String? = nil) -> HTTPResponse {
        relay.respond(to: HTTPRequest(method: .put, target: "/" + (key ?? identity.pubky.z32), body: body))
    }

    private func get(_ relay: PkarrRelay, key: String? = nil) -> HTTPResponse {
        relay.respond(to: HTTPRequest(method: .get, target: "/" + (key ?? identity.pubky.z32)))
    }

    func testAStoredPacketIsServedWithItsHeaders() throws {
        let relay = PkarrRelay()
        let packet = try signed(port: 9000, timestamp: 1_700_000_000_000_000)
        XCTAssertEqual(get(relay).status, .notFound)
        XCTAssertEqual(put(relay, packet.relayPayload).status, .noContent)
        let reply = get(relay)
        XCTAssertEqual(reply.status, .ok)
        XCTAssertEqual(reply.body, packet.relayPayload)
        XCTAssertEqual(reply.headers.first(name: "content-type"), "application/pkarr.org/relays#payload")
        XCTAssertEqual(reply.headers.first(name: "cache-control"), "public, max-age=120")
        XCTAssertEqual(reply.headers.first(name: "last-modified"), "Tue, 14 Nov 2023 22:13:20 GMT")
        XCTAssertEqual(reply.headers.first(name: "access-control-allow-origin"), "*")
        XCTAssertEqual(try SignedPacket(pubky: identity.pubky, relayPayload: reply.body), packet)
        XCTAssertEqual(relay.counters, PkarrRelay.Counters(gets: 2, getsFound: 1, puts: 1, putsStored: 1, putsRefused: 0))
    }

    func testTheSamePacketAgainIs204AndAnOlderOneIs409() throws {
        let relay = PkarrRelay()
        let newer = try signed(port: 9001, timestamp: 2_000)
        XCTAssertEqual(put(relay, newer.relayPayload).status, .noContent)
        XCTAssertEqual(put(relay, newer.relayPayload).status, .noContent)
        XCTAssertEqual(put(relay, try signed(port: 9000, timestamp: 1_999).relayPayload).status, .conflict)
        XCTAssertEqual(get(relay).body, newer.relayPayload, "an older packet never replaces the stored one")
        // Equal timestamps: the larger packet wins (pkarr's tie rule), the smaller is 409.
        let tieLarger = try signed(port: 9002, timestamp: 2_000)
        XCTAssertTrue(tieLarger.isMoreRecent(than: newer))
        XCTAssertEqual(put(relay, tieLarger.relayPayload).status, .noContent)
        XCTAssertEqual(put(relay, newer.relayPayload).status, .conflict)
        let newest = try signed(port: 9003, timestamp: 3_000)
        XCTAssertEqual(put(relay, newest.relayPayload).status, .noContent)
        XCTAssertEqual(get(relay).body, newest.relayPayload)
    }

    func testBadKeysSignaturesAndPacketsAre400AndChangeNothing() throws {
        let relay = PkarrRelay()
        let good = try signed(port: 9000, timestamp: 10)
        XCTAssertEqual(put(relay, good.relayPayload).status, .noContent)
        var badSignature = try signed(port: 9001, timestamp: 11).relayPayload
        badSignature[3] ^= 1
        XCTAssertEqual(put(relay, badSignature).status, .badRequest)
        // Another key's packet under this key's path.
        let other = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 6, count: 32)))
        let foreign = try SignedPacket.sign(DNSPacket(answers: []), by: other, timestamp: 12)
        XCTAssertEqual(put(relay, foreign.relayPayload).status, .badRequest)
        // A validly signed payload whose "DNS packet" does not parse.
        let garbage: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1]
        let signature = identity.sign(SignedPacket.signable(timestamp: 13, packet: garbage))
        XCTAssertEqual(put(relay, signature + [0, 0, 0, 0, 0, 0, 0, 13] + garbage).status, .badRequest)
        XCTAssertEqual(put(relay, [UInt8](repeating: 0, count: 50)).status, .badRequest)
        // Keys that are not keys.
        XCTAssertEqual(put(relay, good.relayPayload, key: "not-a-key").status, .badRequest)
        XCTAssertEqual(get(relay, key: String(identity.pubky.z32.dropLast()) + "!").status, .badRequest)
        XCTAssertEqual(get(relay, key: identity.pubky.z32 + "/x").status, .badRequest)
        XCTAssertEqual(get(relay).body, good.relayPayload)
        XCTAssertEqual(relay.counters.putsRefused, 4, "a path that is no key is refused before the store")
    }

    func testAPayloadOver1072BytesIs413() throws {
        let relay = PkarrRelay()
        XCTAssertEqual(put(relay, [UInt8](repeating: 0, count: 1073)).status, .contentTooLarge)
        XCTAssertEqual(relay.storedKeys, 0)
    }

    func testOtherMethodsAre405() {
        let relay = PkarrRelay()
        XCTAssertEqual(relay.respond(to: HTTPRequest(method: .post, target: "/" + identity.pubky.z32)).status, .methodNotAllowed)
        XCTAssertEqual(relay.respond(to: HTTPRequest(method: .options, target: "/" + identity.pubky.z32)).status, .noContent)
    }

    func testStaleModeServesThePreviousPacketAndForgedModeAPacketThatFailsVerification() throws {
        let relay = PkarrRelay()
        let first = try signed(port: 9000, timestamp: 100)
        let second = try signed(port: 9001, timestamp: 200)
        XCTAssertEqual(put(relay, first.relayPayload).status, .noContent)
        XCTAssertEqual(put(relay, second.relayPayload).status, .noContent)
        relay.setMode(.stale)
        XCTAssertEqual(get(relay).body, first.relayPayload)
        relay.setMode(.forged)
        let forged = get(relay).body
        XCTAssertNotEqual(forged, second.relayPayload)
        XCTAssertThrowsError(try SignedPacket(pubky: identity.pubky, relayPayload: forged)) {
            XCTAssertEqual($0 as? PkarrError, .badSignature)
        }
        // PUTs are still checked in a misbehaving mode.
        XCTAssertEqual(put(relay, first.relayPayload).status, .conflict)
        relay.setMode(.honest)
        XCTAssertEqual(get(relay).body, second.relayPayload)
    }

    /// Over loopback HTTP: PUT, GET, down (the port refuses connections), up again (same
    /// port, same store).
    func testOverHTTPAndDownAndUpAgain() async throws {
        let loop = try EventLoop()
        let service = try await PkarrRelayService.start(loop: loop)
        let client = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 5_000), loop: loop)
        let endpoint = HTTPEndpoint(host: "127.0.0.1", port: service.port)
        let path = "/" + identity.pubky.z32
        let packet = try signed(port: 9000, timestamp: 1)
        let put = try await client.send(HTTPRequest(method: .put, target: path, body: packet.relayPayload), to: endpoint)
        XCTAssertEqual(put.status, .noContent)
        let got = try await client.send(HTTPRequest(method: .get, target: path), to: endpoint)
        XCTAssertEqual(got.status, .ok)
        XCTAssertEqual(got.body, packet.relayPayload)
        try await service.setMode(.down)
        await client.shutDown()
        let fresh = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 5_000), loop: loop)
        do {
            _ = try await fresh.send(HTTPRequest(method: .get, target: path), to: endpoint)
            XCTFail("a relay that is down answered")
        } catch {
            // Refused: what a client of a relay that is gone sees.
        }
        try await service.setMode(.honest)
        let again = try await fresh.send(HTTPRequest(method: .get, target: path), to: endpoint)
        XCTAssertEqual(again.body, packet.relayPayload)
        await fresh.shutDown()
        await service.stop()
        await loop.shutdown()
    }
}
