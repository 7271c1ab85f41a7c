import Bitcoin
import Regtest
import TestSupport
import Transport
import XCTest

/// The hub with its pkarr relays: their URLs among the endpoints, `hub_pkarr_relays` and
/// `hub_pkarr_relay` over JSON-RPC, a relay taken down and brought back.
final class RegtestHubPkarrTests: XCTestCase {
    func testRelaysAreListedControlledAndServe() async throws {
        let harness = try await RegtestHubHarness(housekeepingMilliseconds: 600_000, pkarrRelays: 2)
        let urls = try XCTUnwrap(harness.hub.endpoints["pkarr_relays"]?.arrayValue.compactMap(\.stringValue))
        XCTAssertEqual(urls, harness.hub.pkarrRelays.map(\.url))
        XCTAssertEqual(urls.count, 2)
        XCTAssertTrue(urls.allSatisfy { $0.hasPrefix("http://127.0.0.1:") })

        // A packet PUT to relay 0 over HTTP shows in its counters.
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 8, count: 32)))
        let packet = try SignedPacket.sign(DNSPacket(answers: [
            DNSRecord(name: SignedPacket.zone(of: identity.pubky), ttl: 60, data: .a([127, 0, 0, 1])),
        ]), by: identity, timestamp: 1)
        let client = HTTPClient(loop: harness.loop)
        let first = HTTPEndpoint(host: "127.0.0.1", port: harness.hub.pkarrRelays[0].port)
        let put = try await client.send(HTTPRequest(method: .put, target: "/" + identity.pubky.z32,
                                                    body: packet.relayPayload), to: first)
        XCTAssertEqual(put.status, .noContent)
        let listed = try await harness.rpc.call("hub_pkarr_relays").arrayValue
        XCTAssertEqual(listed.count, 2)
        XCTAssertEqual(listed[0]["keys"]?.intValue, 1)
        XCTAssertEqual(listed[0]["puts_stored"]?.intValue, 1)
        XCTAssertEqual(listed[1]["keys"]?.intValue, 0)
        XCTAssertEqual(listed[1]["mode"]?.stringValue, "honest")

        let down = try await harness.rpc.call("hub_pkarr_relay", "[0, \"down\"]")
        XCTAssertEqual(down["mode"]?.stringValue, "down")
        await client.shutDown()
        let fresh = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: 5_000), loop: harness.loop)
        do {
            _ = try await fresh.send(HTTPRequest(method: .get, target: "/" + identity.pubky.z32), to: first)
            XCTFail("a relay that is down answered")
        } catch {}
        _ = try await harness.rpc.call("hub_pkarr_relay", "[0, \"honest\"]")
        let back = try await fresh.send(HTTPRequest(method: .get, target: "/" + identity.pubky.z32), to: first)
        XCTAssertEqual(back.body, packet.relayPayload)

        let badIndex = try await harness.rpc.raw("hub_pkarr_relay", "[2, \"down\"]")
        XCTAssertTrue(badIndex.body.contains("index must be 0...1"), badIndex.body)
        let badMode = try await harness.rpc.raw("hub_pkarr_relay", "[0, \"sleepy\"]")
        XCTAssertTrue(badMode.body.contains("mode must be one of honest, stale, forged, down"), badMode.body)
        await fresh.shutDown()
        await harness.shutDown()
    }
}
