import Foundation
import Offers
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// `contacts add <name> <pubky>` with no address, through the hub's relays: a provider that
/// serves a Pubky identity is found by the identity alone, probed at the node key its
/// identity certifies, and found again when it moves to another port; without relays or
/// without a packet, the command says what to do.
final class PkarrResolvingTests: XCTestCase {
    private static let engines = NodeEngines.factory(settings: NodeEngines.Settings(
        followerPollMilliseconds: 200, confirmationWaitMilliseconds: 10_000, giveUpSeconds: 600))

    func testAContactAddedByItsIdentityAloneIsReachedAndFollowedWhenItMoves() async throws {
        let fixture = try await DaemonFixture(pkarrRelays: 2)
        let relays = fixture.hub.pkarrRelays.map { "pkarr_relay=\($0.url)" }
        _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
        // carol: a provider whose pubky is pubky-core's sample identity, certifying her node key.
        let carolLN = try await fixture.hub.lightning.addNode(name: "carol", balanceSat: 0)
        let carolConfig = fixture.hubConfig.filter { !$0.hasPrefix("lnd_") }
            + DaemonFixture.lightningConfig(carolLN, macaroonFile: "carol.macaroon") + ["provider=1"] + relays
        let (carolDir, carolNode) = try await fixture.dataDirectory("carol", config: carolConfig)
        try Data(try XCTUnwrap([UInt8](hex: carolLN.macaroonHex))).write(to: URL(fileURLWithPath: carolDir + "/carol.macaroon"))
        let identity = try PubkyRecoveryFile.open([UInt8](try Vectors.data("pubky/sample_recovery.key")), passphrase: [])
        try PubkyIdentityFile.write(try PubkyCertification.sign(node: carolNode, identity: identity, existing: nil), datadir: carolDir)
        var carol = try await fixture.start(carolDir, engines: Self.engines)
        let address = try await carol.result("wallet.address")
        _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(address["address"]?.stringValue)), .number("0.5")])

        let (clientDir, _) = try await fixture.dataDirectory("client", config: fixture.hubConfig + relays)
        let client = try await fixture.start(clientDir, engines: Self.engines)
        let added = try await client.result("contacts.add", ["name": .string("carol"), "pubky": .string(identity.pubky.z32)])
        XCTAssertEqual(added["contact"]?["pubky"]?.stringValue, identity.pubky.z32)
        XCTAssertEqual(added["contact"]?["node_pubky"]?.stringValue, carolNode.z32)
        XCTAssertEqual(added["contact"]?["address_from"]?.stringValue, "pkarr")
        XCTAssertEqual(added["contact"]?["port"]?.int64Value, Int64(carol.ready.listenPort))

        // Probed at her node key: her signed offer comes back.
        try await clientEventually(seconds: 30, "carol's offer") {
            let offers = try await client.result("offers", ["refresh": .bool(true)])
            return offers["offers"]?.arrayValue?.first?["contact"]?.stringValue == "carol"
        }

        // carol moves to another port and republishes; the client's next probe fails at the
        // old port, looks her up again, and reaches her.
        let oldPort = carol.ready.listenPort
        try await carol.stop()
        carol = try await fixture.start(carolDir, overrides: [ConfigEntry(key: "listen", value: "127.0.0.1:0",
                                                                            origin: ConfigEntry.commandLine)],
                                        engines: Self.engines)
        XCTAssertNotEqual(carol.ready.listenPort, oldPort)
        let offers = try await client.result("offers", ["refresh": .bool(true)])
        XCTAssertEqual(offers["offers"]?.arrayValue?.first?["contact"]?.stringValue, "carol", "\(offers)")
        let listed = try await client.result("contacts.list")
        XCTAssertEqual(listed["contacts"]?.arrayValue?.first?["port"]?.int64Value, Int64(carol.ready.listenPort))
        try await client.stop()
        try await carol.stop()
        await fixture.shutDown()
    }

    func testWithoutRelaysOrWithoutAPacketTheCommandSaysWhatToDo() async throws {
        let fixture = try await DaemonFixture(pkarrRelays: 1)
        let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x61, count: 32))).pubky
        let (plainDir, _) = try await fixture.dataDirectory("plain", config: fixture.hubConfig)
        let plain = try await fixture.start(plainDir, engines: Self.engines)
        let noRelays = try await plain.call("contacts.add", ["name": .string("x"), "pubky": .string(stranger.z32)])
        guard case .failure(let refusal) = noRelays else { return XCTFail("added without an address or a relay") }
        XCTAssertTrue(refusal.message.contains("no pkarr_relay is set"), refusal.message)
        try await plain.stop()

        let (dir, _) = try await fixture.dataDirectory("client", config: fixture.hubConfig
                                                       + ["pkarr_relay=\(fixture.hub.pkarrRelays[0].url)"])
        let client = try await fixture.start(dir, engines: Self.engines)
        let unknown = try await client.call("contacts.add", ["name": .string("x"), "pubky": .string(stranger.z32)])
        guard case .failure(let missing) = unknown else { return XCTFail("added a pubky no relay knows") }
        XCTAssertEqual(missing.code, "not_found")
        XCTAssertTrue(missing.message.contains("cannot be resolved through the pkarr relays"), missing.message)
        XCTAssertTrue(missing.message.contains("<host:port>"), missing.message)
        let listed = try await client.result("contacts.list")
        XCTAssertEqual(listed["contacts"]?.arrayValue?.count, 0, "nothing saved")
        // With an address it is saved as typed, with a note.
        let typed = try await client.result("contacts.add", ["name": .string("x"), "pubky": .string(stranger.z32),
                                                             "host": .string("127.0.0.1"), "port": .integer(9)])
        XCTAssertEqual(typed["contact"]?["address_from"]?.stringValue, "typed")
        XCTAssertTrue(typed["note"]?.stringValue?.contains("not resolved through the pkarr relays") ?? false, "\(typed)")
        try await client.stop()
        await fixture.shutDown()
    }
}
