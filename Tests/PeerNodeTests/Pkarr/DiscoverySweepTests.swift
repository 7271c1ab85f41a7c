import Foundation
import Offers
import PeerNode
import Regtest
import Transport
import XCTest

/// The discovery sweep: every contact read in one round, spread over the relays (one relay
/// per contact, rotating each round), another relay asked when that one gives nothing, and
/// a contact whose address follows its packet moved to the endpoint found.
final class DiscoverySweepTests: XCTestCase {
    func testOneRoundSpreadsTheContactsOverTheRelaysAndMovesThem() async throws {
        let loop = try EventLoop()
        var relays: [PkarrRelayService] = []
        for _ in 0..<2 { relays.append(try await PkarrRelayService.start(loop: loop)) }
        let http = HTTPClient(loop: loop)
        let store = try SQLiteSwapStore.openInMemory()
        let urls = relays.map { try! PkarrRelayURL($0.url) }
        let directory = await ContactDirectory(relays: PkarrRelays(urls: urls, client: PkarrRelayClient(http: http)),
                                               store: store, clock: ClientWallClock())
        let sweep = DiscoverySweep(directory: directory, store: store, network: "regtest", log: .silent)
        var identities: [NodeIdentity] = []
        for index in 0..<4 {
            let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: UInt8(0x70 + index), count: 32)))
            identities.append(identity)
            let packet = try SignedPacket.sign(PeernodeRecords.nodePacket(node: identity.pubky, hosts: ["127.0.0.1"],
                                                                          port: UInt16(9_000 + index), ttl: 60),
                                               by: identity, timestamp: 10)
            for relay in relays {
                _ = relay.relay.respond(to: HTTPRequest(method: .put, target: "/" + identity.pubky.z32, body: packet.relayPayload))
            }
            _ = try await store.saveContact(try SavedContact(pubky: identity.pubky, name: "c\(index)", host: "127.0.0.1",
                                                             port: 1, addedAt: 0, resolved: true), replace: false)
        }
        let round = await sweep.sweep()
        XCTAssertEqual(round.contacts, 4)
        XCTAssertEqual(round.resolved, 4)
        XCTAssertEqual(relays.map(\.relay.counters.gets), [2, 2], "each relay saw half of the contacts")
        let moved = try await store.contacts().map(\.port)
        XCTAssertEqual(moved, [9_000, 9_001, 9_002, 9_003], "each address moved to its packet's")

        // Relay 0 down: its share is asked of relay 1, and the next round rotates.
        try await relays[0].setMode(.down)
        let second = await sweep.sweep()
        XCTAssertEqual(second.resolved, 4)
        XCTAssertEqual(relays[1].relay.counters.gets, 6, "relay 1 answered for every contact")
        await http.shutDown()
        for relay in relays { await relay.stop() }
        await loop.shutdown()
    }
}
