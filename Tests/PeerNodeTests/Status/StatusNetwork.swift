import Foundation
import Lightning
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// A provider (status API on), a payee `carol` and a client (no zero-conf claims, so a
/// swap waits in flight until a block is mined) on the hub, for the status tests that need
/// swaps done and one held.
final class StatusNetwork: @unchecked Sendable {
    typealias Node = HubDaemonNode

    let fixture: DaemonFixture
    private(set) var provider: Node?
    private(set) var carol: Node?
    private(set) var client: Node?
    private(set) var providerHTTP: StatusHTTP?
    private(set) var providerToken = ""
    /// The claim fee the held swap's lock includes (the provider locks amount + claim fee).
    private(set) var inFlightClaimFee: Int64 = 0
    private var pending: Task<Result<JSONValue, ControlError>, any Error>?

    init(fixture: DaemonFixture) {
        self.fixture = fixture
    }

    func start() async throws {
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let carolLN = try await fixture.hub.lightning.addNode(name: "carol", balanceSat: 0)
        provider = try await startNode("prov", lightning: providerLN, extra: ["provider=1", "status_listen=127.0.0.1:0"])
        carol = try await startNode("carol", lightning: carolLN, extra: ["provider=0", "accept_lightning=0"])
        client = try await startNode("client", lightning: fixture.lightning, extra: ["provider=0", "zero_conf=0"])
        let provider = provider!, carol = carol!, client = client!
        try await fixture.fundProviderAndSaveContacts(provider: provider, carol: carol, client: client)
        providerHTTP = StatusHTTP(port: try XCTUnwrap(provider.node.ready.statusPort), loop: fixture.loop)
        providerToken = try StatusHTTP.token(datadir: provider.datadir)
    }

    /// Pays carol `amountSat` through the provider with blocks mined, until the swap is
    /// final on both sides.
    func pay(_ amountSat: Int64) async throws {
        let (provider, client) = (provider!, client!)
        let before = try await provider.node.result("report")["swaps"]?.arrayValue?.count ?? 0
        let miner = mining()
        defer { miner.cancel() }
        _ = try await client.node.result("pay", ["contact": .string("carol"), "amount_sat": .integer(amountSat)])
        try await waitFor("the swap is final on both sides", seconds: 90) {
            for node in [client, provider] {
                let report = try await node.node.result("report")
                guard report["in_flight"]?.arrayValue?.isEmpty == true,
                      report["swaps"]?.arrayValue?.count == before + 1 else { return false }
            }
            return true
        }
        miner.cancel()
        _ = await miner.value
    }

    /// Starts a payment and returns once the provider has broadcast its lock: no block is
    /// mined, so the client (no zero-conf) waits and the swap stays in flight.
    func holdInFlight(_ amountSat: Int64) async throws {
        let client = client!
        pending = Task { try await client.node.call("pay", ["contact": .string("carol"), "amount_sat": .integer(amountSat)]) }
        let http = providerHTTP!, token = providerToken
        try await waitFor("the provider has locked the held swap", seconds: 60) {
            let swaps = try await http.json("/api/swaps", token: token)
            return swaps["live"]?.arrayValue?.first?["stage"] == .string("lock_broadcast")
        }
        let live = try await http.json("/api/swaps", token: token)["live"]?.arrayValue?.first
        inFlightClaimFee = (live?["amount_sat"]?.int64Value ?? amountSat) - amountSat
    }

    /// Moves every swap the provider has so far `days` days into the past (its creation and
    /// every event time), with the provider stopped, then starts it again and gives the
    /// client its new port: the status API then has swaps on more than one day, as a node
    /// that has run for a while does. The store is edited with Python's sqlite3 module.
    func backdateProviderSwaps(days: Int) async throws {
        guard let old = provider else { return }
        try await old.node.stop()
        await providerHTTP?.shutDown()
        let seconds = days * 86_400
        // The store's triggers keep contracts and events immutable; this test-only edit lifts
        // them for one transaction and puts back exactly the SQL the store wrote.
        let script = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        db.execute("BEGIN")
        triggers = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('swaps_immutable', 'swap_events_immutable')").fetchall()
        assert len(triggers) == 2, triggers
        for name, _ in triggers:
            db.execute("DROP TRIGGER " + name)
        db.execute("UPDATE swap_events SET at = at - ?", (int(sys.argv[2]),))
        db.execute("UPDATE swaps SET created_at = created_at - ?", (int(sys.argv[2]),))
        for _, sql in triggers:
            db.execute(sql)
        db.execute("COMMIT")
        db.close()
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, old.datadir + "/peernode.db", String(seconds)]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "backdating the provider's swaps")
        let restarted = try await fixture.start(old.datadir, engines: StatusAPITests.engines)
        provider = old.restarted(as: restarted)
        providerHTTP = StatusHTTP(port: try XCTUnwrap(restarted.ready.statusPort), loop: fixture.loop)
        _ = try await client!.node.result("contacts.add", [
            "name": .string("prov"), "pubky": .string(old.pubky.z32), "host": .string("127.0.0.1"),
            "port": .integer(restarted.ready.listenPort), "replace": .bool(true)])
    }

    func stop() async {
        pending?.cancel()
        await providerHTTP?.shutDown()
        for node in [provider, carol, client].compactMap({ $0 }) { try? await node.node.stop() }
    }

    private func mining() -> Task<Void, Never> {
        let rpc = fixture.rpc
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 500_000_000)
                _ = try? await rpc.call("hub_mine", [.number("1")])
            }
        }
    }

    private func startNode(_ name: String, lightning: LightningEndpoint, extra: [String]) async throws -> Node {
        try await fixture.startNode(name, lightning: lightning, extra: extra, engines: StatusAPITests.engines)
    }

    private func waitFor(_ what: String, seconds: Int = 60, file: StaticString = #filePath, line: UInt = #line,
                         _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        XCTFail("timed out waiting until \(what)", file: file, line: line)
        throw CancellationError()
    }
}
