import Foundation
import Offers
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// A provider daemon publishing to the hub's two relays: its endpoint and its capability
/// descriptor (its live offer's terms) at start, again when the offer changes, and again
/// before the TTL runs out; a node serving a Pubky identity republishes the identity's packet.
final class PkarrPublishingTests: XCTestCase {
    private static let engines = NodeEngines.factory(settings: NodeEngines.Settings(
        followerPollMilliseconds: 200, confirmationWaitMilliseconds: 10_000, giveUpSeconds: 600))

    private func packet(_ relay: PkarrRelayService, _ key: Pubky) throws -> SignedPacket? {
        try Self.packet(relay, key)
    }

    private static func packet(_ relay: PkarrRelayService, _ key: Pubky) throws -> SignedPacket? {
        let reply = relay.relay.respond(to: HTTPRequest(method: .get, target: "/" + key.z32))
        guard reply.status == .ok else { return nil }
        return try SignedPacket(pubky: key, relayPayload: reply.body)
    }

    /// Waits (a bounded time) for `condition` over relay 0's packet of `key`.
    private func waitForPacket(_ relay: PkarrRelayService, _ key: Pubky, seconds: Double = 15, what: String,
                               _ condition: (SignedPacket) -> Bool) async throws -> SignedPacket {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let found = try packet(relay, key), condition(found) { return found }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTFail("timed out waiting for \(what)")
        throw CancellationError()
    }

    func testAProviderPublishesItsEndpointAndDescriptorThenRepublishesOnChangeAndBeforeTheTTL() async throws {
        let fixture = try await DaemonFixture(pkarrRelays: 2)
        let relays = fixture.hub.pkarrRelays
        _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let provider = try await fixture.startNode("prov", lightning: providerLN, extra: [
            "provider=1", "base_fee_sat=300", "fee_ppm=1000", "pkarr_ttl_seconds=10",
        ] + relays.map { "pkarr_relay=\($0.url)" }, engines: Self.engines)
        let fresh = try await provider.node.result("wallet.address")
        _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.5")])

        // At start: both relays hold the node's packet, naming its peer port on loopback.
        let first = try await waitForPacket(relays[0], provider.pubky, what: "the descriptor") {
            (try? CapabilityDescriptor.read(from: $0).get()) != nil
        }
        XCTAssertEqual(PeernodeRecords.endpoint(in: first),
                       PeernodeRecords.Endpoint(host: "127.0.0.1", port: UInt16(provider.node.ready.listenPort)))
        XCTAssertEqual(try packet(relays[1], provider.pubky).flatMap { PeernodeRecords.endpoint(in: $0) },
                       PeernodeRecords.endpoint(in: first))
        let descriptor = try CapabilityDescriptor.read(from: first).get()
        XCTAssertEqual(descriptor.network, "regtest")
        let reverse = try XCTUnwrap(descriptor.terms.first { $0.direction == .lightningToOnchain })
        XCTAssertEqual(reverse.baseFeeSat, 300)
        XCTAssertEqual(reverse.feePPM, 1_000)
        XCTAssertEqual(reverse.maxAmountSat, 1_000_000)
        XCTAssertEqual(descriptor.contractTypes, ["taproot_boltz", "p2wsh_v2"])
        XCTAssertLessThanOrEqual(first.encodedPacket.count, DNSPacket.maxLength)
        let status = try await provider.node.result("status")
        XCTAssertEqual(status["pubky"]?.stringValue, provider.pubky.z32)
        XCTAssertEqual(status["pkarr"]?["relays"]?.arrayValue?.count, 2)

        // A change of the offer (the fee estimate moves its on-chain fee) is republished.
        _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("5000")])
        let changed = try await waitForPacket(relays[0], provider.pubky, what: "the changed fee") { packet in
            (try? CapabilityDescriptor.read(from: packet).get())?.terms.first { $0.direction == .lightningToOnchain }?
                .onchainFeeSat ?? 0 > reverse.onchainFeeSat
        }
        XCTAssertGreaterThan(changed.timestamp, first.timestamp)

        // Nothing changes, yet at half the TTL (5 s) a fresh packet is signed.
        let refreshed = try await waitForPacket(relays[0], provider.pubky, seconds: 12, what: "the refresh") {
            $0.timestamp > changed.timestamp
        }
        XCTAssertEqual(try CapabilityDescriptor.read(from: refreshed).get().terms, try CapabilityDescriptor.read(from: changed).get().terms)
        XCTAssertGreaterThan(try CapabilityDescriptor.read(from: refreshed).get().expiresAtUnix,
                             try CapabilityDescriptor.read(from: changed).get().expiresAtUnix)
        try await provider.node.stop()
        await fixture.shutDown()
    }

    func testANodeServingAPubkyIdentityRepublishesItAndShowsItAsItsPubky() async throws {
        let fixture = try await DaemonFixture(pkarrRelays: 1)
        let relay = fixture.hub.pkarrRelays[0]
        let (datadir, node) = try await fixture.dataDirectory("carol", config: fixture.hubConfig + ["pkarr_relay=\(relay.url)"])
        let identity = try PubkyRecoveryFile.open([UInt8](try Vectors.data("pubky/sample_recovery.key")), passphrase: [])
        let certified = try PubkyCertification.sign(node: node, identity: identity, existing: nil)
        try PubkyIdentityFile.write(certified, datadir: datadir)
        XCTAssertNil(try packet(relay, identity.pubky), "nothing published before the daemon starts")

        let daemon = try await fixture.start(datadir, engines: Self.engines)
        XCTAssertEqual(daemon.ready.pubky, identity.pubky.z32)
        let republished = try await waitForPacket(relay, identity.pubky, what: "the identity's packet") { _ in true }
        XCTAssertEqual(republished, certified, "republished exactly as init signed it")
        let own = try await waitForPacket(relay, node, what: "the node's packet") { _ in true }
        XCTAssertNil(try? CapabilityDescriptor.read(from: own).get(), "no provider, no descriptor")
        let resolved = try await PeernodeResolution.resolve(identity.pubky) { key in
            guard let found = try? Self.packet(relay, key) else { return .failure(.noPacket(key, "404")) }
            return .success(found)
        }.get()
        XCTAssertEqual(resolved.nodeKey, node)
        XCTAssertEqual(resolved.endpoint.port, UInt16(daemon.ready.listenPort))
        let status = try await daemon.result("status")
        XCTAssertEqual(status["pubky"]?.stringValue, identity.pubky.z32)
        XCTAssertEqual(status["node_pubky"]?.stringValue, node.z32)
        try await daemon.stop()

        // A file naming another node's key stops the start, naming the file.
        let (other, _) = try await fixture.dataDirectory("dave", config: fixture.hubConfig)
        try PubkyIdentityFile.write(certified, datadir: other)
        do {
            _ = try await fixture.start(other, engines: Self.engines)
            XCTFail("started with another node's identity file")
        } catch let error as DaemonError {
            XCTAssertEqual(error.code, "pubky_identity")
            XCTAssertTrue(error.description.contains("does not name this node's key"), error.description)
        }
        await fixture.shutDown()
    }
}
