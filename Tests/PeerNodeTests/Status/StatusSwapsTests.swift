import Bitcoin
import Foundation
import HTLC
import Lightning
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// The status API and /metrics of a provider and a client that swapped on the hub: one
/// swap done, one held in flight (the client waits for a confirmation no one mines). No
/// body carries a secret the test knows; /metrics reads as Prometheus' own parser reads it,
/// and its store-derived counters do not decrease across a restart.
final class StatusSwapsTests: XCTestCase {
    private func startNode(_ fixture: DaemonFixture, _ name: String, lightning: LightningEndpoint,
                           extra: [String]) async throws -> HubDaemonNode {
        try await fixture.startNode(name, lightning: lightning, extra: extra, engines: StatusAPITests.engines)
    }

    func testSecretsNeverAppearMetricsParseAndCountersSurviveARestart() async throws {
        let fixture = try await DaemonFixture()
        let providerLN = try await fixture.hub.lightning.addNode(name: "prov", balanceSat: 0)
        let carolLN = try await fixture.hub.lightning.addNode(name: "carol", balanceSat: 0)
        var provider = try await startNode(fixture, "prov", lightning: providerLN, extra: ["provider=1", "status_listen=127.0.0.1:0"])
        let carol = try await startNode(fixture, "carol", lightning: carolLN, extra: ["provider=0", "accept_lightning=0"])
        // No zero-conf claims: the second swap then waits, in flight, for a block.
        let client = try await startNode(fixture, "client", lightning: fixture.lightning,
                                         extra: ["provider=0", "zero_conf=0", "status_listen=127.0.0.1:0"])
        var nodes = [provider, carol, client]
        var https: [StatusHTTP] = []
        var pending: Task<Result<JSONValue, ControlError>, any Error>?
        do {
            try await fixture.fundProviderAndSaveContacts(provider: provider, carol: carol, client: client)
            let providerHTTP = StatusHTTP(port: try XCTUnwrap(provider.node.ready.statusPort), loop: fixture.loop)
            let clientHTTP = StatusHTTP(port: try XCTUnwrap(client.node.ready.statusPort), loop: fixture.loop)
            https = [providerHTTP, clientHTTP]
            let providerToken = try StatusHTTP.token(datadir: provider.datadir)
            let clientToken = try StatusHTTP.token(datadir: client.datadir)

            let rpc = fixture.rpc
            // One swap done, mined as it goes.
            let miner = Task { [rpc] in
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 500_000_000)
                    _ = try? await rpc.call("hub_mine", [.number("1")])
                }
            }
            _ = try await client.node.result("pay", ["contact": .string("carol"), "amount_sat": .integer(20_000)])
            try await waitFor("the first swap is final on both sides", seconds: 90) {
                for node in [client, provider] {
                    let report = try await node.node.result("report")
                    guard report["in_flight"]?.arrayValue?.isEmpty == true, report["swaps"]?.arrayValue?.count == 1 else { return false }
                }
                return true
            }
            miner.cancel()
            _ = await miner.value

            // The second one waits for its lock's confirmation: in flight on both sides.
            pending = Task { [client] in
                try await client.node.call("pay", ["contact": .string("carol"), "amount_sat": .integer(25_000)])
            }
            try await waitFor("the provider has locked the second swap", seconds: 60) {
                let swaps = try await providerHTTP.json("/api/swaps", token: providerToken)
                return swaps["live"]?.arrayValue?.first?["stage"] == .string("lock_broadcast")
            }
            let providerSwaps = try await providerHTTP.json("/api/swaps", token: providerToken)
            let live = try XCTUnwrap(providerSwaps["live"]?.arrayValue?.first)
            XCTAssertEqual(live["role"], .string("provider"))
            XCTAssertEqual(live["final"], .bool(false))
            XCTAssertEqual(live["outcome"], .string("in_flight"))
            let statusNow = try await providerHTTP.json("/api/status", token: providerToken)
            let tip = try XCTUnwrap(statusNow["tip_height"]?.int64Value)
            let timeout = try XCTUnwrap(live["timeout_height"]?.int64Value)
            XCTAssertEqual(live["blocks_left"], .integer(timeout - tip))
            XCTAssertEqual(live["peer_name"], .null, "the client is no saved contact of the provider")
            XCTAssertEqual(providerSwaps["recent"]?.arrayValue?.count, 1)
            XCTAssertEqual(providerSwaps["recent"]?.arrayValue?.first?["outcome"], .string("completed"))
            let limits = try await providerHTTP.json("/api/limits", token: providerToken)
            XCTAssertEqual(limits["overall"]?["exposure_sat"], live["amount_sat"], "the held swap is the provider's exposure")
            XCTAssertEqual(limits["peers"]?.arrayValue?.first?["peer"], .string(client.pubky.z32))
            XCTAssertEqual(limits["peers"]?.arrayValue?.first?["swaps"], .integer(1))
            let clientSwaps = try await clientHTTP.json("/api/swaps", token: clientToken)
            let clientLive = try XCTUnwrap(clientSwaps["live"]?.arrayValue?.first)
            XCTAssertEqual(clientLive["peer_name"], .string("prov"))

            // The secrets the test knows: both seeds, both macaroons, both tokens, and the
            // in-flight swap's preimage (the client's alone until it claims).
            let shown = try await client.node.result("swap.show", ["id": try XCTUnwrap(clientLive["id"])])
            let index = UInt32(try XCTUnwrap(shown["swap"]?["swap_index"]?.int64Value))
            let clientSeed = try Array(Data(contentsOf: URL(fileURLWithPath: client.datadir + "/seed")))
            let preimage = try SwapKeyChain(seed: clientSeed, network: .regtest).secrets(index: index, scheme: .current).preimage
            let providerSeed = try Array(Data(contentsOf: URL(fileURLWithPath: provider.datadir + "/seed")))
            let secrets = [("client seed", clientSeed.hex), ("provider seed", providerSeed.hex),
                           ("client macaroon", client.macaroonHex), ("provider macaroon", provider.macaroonHex),
                           ("provider token", providerToken), ("client token", clientToken), ("unrevealed preimage", preimage.hex)]
            for (http, token) in [(providerHTTP, providerToken), (clientHTTP, clientToken)] {
                for path in StatusAPITests.shapes.map(\.path) + ["/metrics", "/", "/dashboard.js", "/dashboard.css", "/login"] {
                    let response = try await http.get(path, bearer: token)
                    XCTAssertEqual(response.status.code, 200, path)
                    let body = String(decoding: response.body, as: UTF8.self).lowercased()
                    XCTAssertGreaterThan(body.count, 20, path)
                    for (what, secret) in secrets {
                        XCTAssertFalse(body.contains(secret.lowercased()), "\(path) carries the \(what)")
                    }
                }
            }

            // /metrics as Prometheus' parser reads it.
            let beforeText = try await metrics(providerHTTP, providerToken)
            print("GET /metrics (provider, one swap done, one in flight):\n" + beforeText)
            let before = try PrometheusParser.parse(beforeText)
            let completed = ["role": "provider", "direction": "ln_to_onchain", "outcome": "completed"]
            XCTAssertEqual(before["peernode_swaps"]?.type, "counter")
            XCTAssertEqual(before["peernode_swaps"]?.value("peernode_swaps_total", completed), 1)
            XCTAssertEqual(before["peernode_swaps_in_flight"]?.value("peernode_swaps_in_flight", ["role": "provider"]), 1)
            let report = try await provider.node.result("report")
            let earned = try XCTUnwrap(report["overall"]?["provider"]?["service_fee_sat"]?.int64Value)
            XCTAssertGreaterThan(earned, 0)
            XCTAssertEqual(before["peernode_fees_earned_sat"]?.value("peernode_fees_earned_sat_total"), Double(earned))
            XCTAssertEqual(before["peernode_exposure_sat"]?.value("peernode_exposure_sat"), live["amount_sat"]?.int64Value.map(Double.init))
            XCTAssertEqual(before["peernode_quotes"]?.value("peernode_quotes_total", ["result": "issued"]), 2)
            XCTAssertGreaterThanOrEqual(before["peernode_offer_requests"]?.value("peernode_offer_requests_total", ["result": "answered"]) ?? 0, 1)
            XCTAssertGreaterThanOrEqual(before["peernode_peer_connections"]?.value("peernode_peer_connections") ?? 0, 1)
            let latency = try XCTUnwrap(before["peernode_backend_request_duration_seconds"])
            XCTAssertEqual(latency.type, "histogram")
            for backend in ["bitcoind", "lnd"] {
                let count = try XCTUnwrap(latency.value("peernode_backend_request_duration_seconds_count", ["backend": backend]))
                XCTAssertGreaterThan(count, 0, backend)
                XCTAssertEqual(latency.value("peernode_backend_request_duration_seconds_bucket", ["backend": backend, "le": "+Inf"]), count)
            }
            let clientMetrics = try PrometheusParser.parse(try await metrics(clientHTTP, clientToken))
            XCTAssertEqual(clientMetrics["peernode_swaps"]?.value("peernode_swaps_total",
                                                                   ["role": "client", "direction": "ln_to_onchain", "outcome": "completed"]), 1)
            let paidService = try XCTUnwrap(clientMetrics["peernode_fees_paid_sat"]?.value("peernode_fees_paid_sat_total", ["kind": "service"]))
            XCTAssertEqual(paidService, Double(earned), "the client paid the provider's service fee")

            // Mine: the second swap completes. Then the provider restarts and its counters
            // (from the store) read the same or more, never less.
            let miner2 = Task { [rpc] in
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 500_000_000)
                    _ = try? await rpc.call("hub_mine", [.number("1")])
                }
            }
            _ = try await pending?.value.get()
            pending = nil
            try await waitFor("the second swap is final at the provider", seconds: 90) {
                let report = try await provider.node.result("report")
                return report["in_flight"]?.arrayValue?.isEmpty == true && report["swaps"]?.arrayValue?.count == 2
            }
            miner2.cancel()
            _ = await miner2.value
            let done = try PrometheusParser.parse(try await metrics(providerHTTP, providerToken))
            XCTAssertEqual(done["peernode_swaps"]?.value("peernode_swaps_total", completed), 2)
            await providerHTTP.shutDown()
            https = [clientHTTP]
            try await provider.node.stop()
            let restarted = try await fixture.start(provider.datadir, engines: StatusAPITests.engines)
            provider = provider.restarted(as: restarted)
            nodes = [provider, carol, client]
            let afterHTTP = StatusHTTP(port: try XCTUnwrap(restarted.ready.statusPort), loop: fixture.loop)
            https.append(afterHTTP)
            let after = try PrometheusParser.parse(try await metrics(afterHTTP, providerToken))
            for family in ["peernode_swaps", "peernode_fees_earned_sat", "peernode_fees_paid_sat"] {
                let old = try XCTUnwrap(done[family]), new = try XCTUnwrap(after[family])
                XCTAssertEqual(new.type, "counter")
                for sample in old.samples {
                    let now = try XCTUnwrap(new.value(sample.name, sample.labels), "\(sample.name)\(sample.labels) is gone after the restart")
                    XCTAssertGreaterThanOrEqual(now, sample.value, "\(sample.name)\(sample.labels) decreased across the restart")
                    XCTAssertEqual(now, sample.value, "\(sample.name)\(sample.labels): nothing happened between")
                }
            }
            XCTAssertEqual(after["peernode_swaps"]?.value("peernode_swaps_total", completed), 2)
            let earnings = try await afterHTTP.json("/api/earnings", token: providerToken)
            let finalReport = try await provider.node.result("report")
            XCTAssertEqual(earnings["total"]?["earned_sat"], finalReport["overall"]?["provider"]?["service_fee_sat"])
            XCTAssertEqual(earnings["total"]?["net_msat"], finalReport["net_msat"])
            XCTAssertEqual(earnings["days"]?.arrayValue?.count, finalReport["days"]?.arrayValue?.count)
        } catch {
            pending?.cancel()
            for http in https { await http.shutDown() }
            for node in nodes { try? await node.node.stop() }
            await fixture.shutDown()
            throw error
        }
        for http in https { await http.shutDown() }
        for node in nodes { try? await node.node.stop() }
        await fixture.shutDown()
    }

    private func metrics(_ http: StatusHTTP, _ token: String) async throws -> String {
        let response = try await http.get("/metrics", bearer: token)
        XCTAssertEqual(response.status.code, 200)
        return String(decoding: response.body, as: UTF8.self)
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
