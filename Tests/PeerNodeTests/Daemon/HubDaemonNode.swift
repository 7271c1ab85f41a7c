import Foundation
import Lightning
import PeerNode
import Regtest
import Transport
import XCTest

/// A daemon on the fixture's hub with an LND node of its own: what the pay, report and
/// status tests start three of (a provider, carol, a client).
struct HubDaemonNode {
    let node: RunningDaemon
    let datadir: String
    let pubky: Pubky
    /// Its LND macaroon, which no answer of the node may carry (the status tests check).
    let macaroonHex: String

    /// The same node, started again on its data directory.
    func restarted(as node: RunningDaemon) -> HubDaemonNode {
        HubDaemonNode(node: node, datadir: datadir, pubky: pubky, macaroonHex: macaroonHex)
    }
}

extension DaemonFixture {
    /// A data directory whose config points at the hub and at `lightning`, its macaroon
    /// written beside the config, and the daemon started on it.
    func startNode(_ name: String, lightning: LightningEndpoint, extra: [String],
                   engines: @escaping SwapEngineFactory) async throws -> HubDaemonNode {
        let lines = hubConfig.filter { !$0.hasPrefix("lnd_") }
            + DaemonFixture.lightningConfig(lightning, macaroonFile: "\(name).macaroon") + extra
        let (datadir, pubky) = try await dataDirectory(name, config: lines)
        try Data(try XCTUnwrap([UInt8](hex: lightning.macaroonHex))).write(to: URL(fileURLWithPath: datadir + "/\(name).macaroon"))
        let node = try await start(datadir, engines: engines)
        return HubDaemonNode(node: node, datadir: datadir, pubky: pubky, macaroonHex: lightning.macaroonHex)
    }

    /// The hub's fee estimate at 1 sat/vB, two confirmed 0.5 BTC coins in the provider's
    /// wallet (one for each of two locks at once), and `prov` and `carol` saved as the
    /// client's contacts.
    func fundProviderAndSaveContacts(provider: HubDaemonNode, carol: HubDaemonNode, client: HubDaemonNode,
                                     file: StaticString = #filePath, line: UInt = #line) async throws {
        _ = try await rpc.call("hub_setfeeestimate", [.number("1000")])
        for _ in 0..<2 {
            let fresh = try await provider.node.result("wallet.address")
            _ = try await rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.5")])
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while try await provider.node.result("wallet.balance")["confirmed_sat"] != .integer(100_000_000) {
            guard ContinuousClock.now < deadline else {
                XCTFail("timed out waiting until the provider's wallet is funded", file: file, line: line)
                throw CancellationError()
            }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        for (name, node) in [("prov", provider), ("carol", carol)] {
            _ = try await client.node.result("contacts.add", [
                "name": .string(name), "pubky": .string(node.pubky.z32), "host": .string("127.0.0.1"),
                "port": .integer(node.node.ready.listenPort)])
        }
    }
}
