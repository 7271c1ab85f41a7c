#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Lightning
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// Cooperative submarine swaps (issue 17) between daemons in-process on the hub, whose
/// blocks the kernel validates, with the engines wired as `peernode run` wires them: a
/// provider (`submarine=1`), a client holding savings only, and erin, who takes Lightning
/// only. Every node has `musig2=1`, the default.
///
/// - a pay to erin: the provider's claim is a key-path spend (one 64-byte signature) mined
///   in a block, erin gets exactly X; then erin goes offline, the next pay's payment fails,
///   and the client's key-path refund is mined well before the timeout;
/// - a client that refuses to co-sign (`PEERNODE_TEST_COOP=refuse`): the script-path claim.
final class DaemonSubmarineCoopTests: XCTestCase {
    private static let engines = NodeEngines.factory(settings: NodeEngines.Settings(
        followerPollMilliseconds: 100, confirmationWaitMilliseconds: 10_000, giveUpSeconds: 600))
    private let amount: Int64 = 20_000

    func testAKeyPathClaimThenAKeyPathRefundBeforeTheTimeout() async throws {
        let fixture = try await DaemonFixture()
        let nodes = try await startNodes(fixture)
        do {
            let erinBefore = try fixture.hub.lightning.network.node("erin").balanceMsat
            let paid = try await pay(fixture, nodes)
            XCTAssertEqual(paid["status"], .string("paid"))
            XCTAssertEqual(paid["preimage_source"], .string("cooperative_claim"), "the provider's request carried the preimage")
            let id = try XCTUnwrap(paid["swap_id"]?.stringValue)
            try await mineUntil(fixture, nodes.client, id, is: "completed")
            let completed = try await lastData(nodes.client, id)
            let claimTxid = try XCTUnwrap(completed["claim_txid"]?.stringValue)
            let claim = try await minedTransaction(fixture, claimTxid)
            XCTAssertEqual(claim.witness.map(\.count), [128], "one 64-byte signature: the key path")
            XCTAssertEqual(try fixture.hub.lightning.network.node("erin").balanceMsat - erinBefore, UInt64(amount) * 1_000,
                           "erin got exactly X")
            let providerKinds = try await kinds(nodes.provider, String(id.dropFirst(4)))
            XCTAssertEqual(Array(providerKinds.drop { $0 != "paid" }.prefix(3)), ["paid", "coop_requested", "claim_broadcast"])

            // erin offline: the payment fails, the provider offers a cooperative refund.
            _ = try await fixture.rpc.call("hub_ln_setonline", [.string("erin"), .bool(false)])
            let failed = try await pay(fixture, nodes, expectingFailure: true)
            let message = failed["message"]?.stringValue ?? ""
            XCTAssertTrue(message.contains("co-signed a refund"), message)
            let listed = try await nodes.client.node.result("swaps")["swaps"]?.arrayValue ?? []
            let refundedID = try XCTUnwrap(listed.compactMap { $0["id"]?.stringValue }.first { $0 != id })
            try await mineUntil(fixture, nodes.client, refundedID, is: "refunded")
            let data = try await lastData(nodes.client, refundedID)
            let refundTxid = try XCTUnwrap(data["refund_txids"]?.arrayValue?.last?.stringValue)
            let refund = try await minedTransaction(fixture, refundTxid)
            XCTAssertEqual(refund.witness.map(\.count), [128], "the refund took the key path")
            let timeout = try XCTUnwrap(data["contract"]?["timeout_height"]?.int64Value)
            XCTAssertLessThan(refund.height + 100, timeout, "mined long before the script path's refund is valid")
            let refundKinds = try await kinds(nodes.provider, String(refundedID.dropFirst(4)))
            XCTAssertEqual(Array(refundKinds.suffix(3)), ["payment_failed", "coop_refund_signed", "released"])
        } catch {
            await stop(nodes, fixture)
            throw error
        }
        await stop(nodes, fixture)
    }

    func testAClientThatRefusesToCoSignLeavesTheScriptPathClaim() async throws {
        let fixture = try await DaemonFixture()
        let nodes = try await startNodes(fixture, clientRefuses: true)
        do {
            let erinBefore = try fixture.hub.lightning.network.node("erin").balanceMsat
            let paid = try await pay(fixture, nodes)
            XCTAssertEqual(paid["preimage_source"], .string("claim"), "learnt from the script-path claim's witness")
            let id = try XCTUnwrap(paid["swap_id"]?.stringValue)
            try await mineUntil(fixture, nodes.client, id, is: "completed")
            let completed = try await lastData(nodes.client, id)
            let claimTxid = try XCTUnwrap(completed["claim_txid"]?.stringValue)
            let claim = try await minedTransaction(fixture, claimTxid)
            XCTAssertEqual(claim.witness.count, 4, "signature, preimage, leaf, control block")
            XCTAssertEqual(try fixture.hub.lightning.network.node("erin").balanceMsat - erinBefore, UInt64(amount) * 1_000)
            let clientKinds = try await kinds(nodes.client, id)
            let providerKinds = try await kinds(nodes.provider, String(id.dropFirst(4)))
            XCTAssertFalse(clientKinds.contains("coop_signed"), "the client co-signed nothing")
            XCTAssertTrue(providerKinds.contains("coop_requested"))
        } catch {
            await stop(nodes, fixture)
            throw error
        }
        await stop(nodes, fixture)
    }

    // MARK: the network

    private struct Nodes {
        let provider: HubDaemonNode
        let client: HubDaemonNode
        let erin: HubDaemonNode
    }

    /// The three daemons, the client's savings (0.005 BTC) confirmed, the contacts saved.
    /// `clientRefuses`: the client daemon is built with `PEERNODE_TEST_COOP=refuse` (read
    /// from the process environment while its engines are made).
    private func startNodes(_ fixture: DaemonFixture, clientRefuses: Bool = false) async throws -> Nodes {
        let providerLN = try await fixture.hub.lightning.addNode(name: "subprov", balanceSat: 1_000_000)
        let erinLN = try await fixture.hub.lightning.addNode(name: "erin", balanceSat: 0)
        let clientLN = try await fixture.hub.lightning.addNode(name: "dave", balanceSat: 0)
        let provider = try await fixture.startNode("subprov", lightning: providerLN,
                                                   extra: ["provider=1", "submarine=1"], engines: Self.engines)
        let erin = try await fixture.startNode("erin", lightning: erinLN, extra: ["provider=0", "accept_onchain=0"],
                                               engines: Self.engines)
        if clientRefuses { setenv(CoopFault.environmentKey, "refuse", 1) }
        defer { unsetenv(CoopFault.environmentKey) }
        let client = try await fixture.startNode("dave", lightning: clientLN, extra: ["provider=0"], engines: Self.engines)
        _ = try await fixture.rpc.call("hub_setfeeestimate", [.number("1000")])
        let fresh = try await client.node.result("wallet.address")
        _ = try await fixture.rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.005")])
        try await waitFor("the client's savings are confirmed") {
            try await client.node.result("wallet.balance")["confirmed_sat"] == .integer(500_000)
        }
        for (node, name, other) in [(client, "subprov", provider), (client, "erin", erin), (erin, "dave", client)] {
            _ = try await node.node.result("contacts.add", [
                "name": .string(name), "pubky": .string(other.pubky.z32), "host": .string("127.0.0.1"),
                "port": .integer(other.node.ready.listenPort)])
        }
        return Nodes(provider: provider, client: client, erin: erin)
    }

    /// `pay erin <amount>` over the control socket, a block mined once the lock is out; the
    /// result (or, `expectingFailure`, the error object).
    private func pay(_ fixture: DaemonFixture, _ nodes: Nodes, expectingFailure: Bool = false) async throws -> JSONValue {
        let node = nodes.client.node
        let amount = self.amount
        let paying = Task {
            try await node.client.send(ControlMessage.Request(command: "pay", args: .object([
                "contact": .string("erin"), "amount_sat": .integer(amount)])), progress: { _ in })
        }
        let before = try await nodes.client.node.result("swaps")["swaps"]?.arrayValue?.count ?? 0
        try await waitFor("the lock is broadcast") {
            guard let swaps = try await node.result("swaps")["swaps"]?.arrayValue, swaps.count > before,
                  let id = swaps.first?["id"]?.stringValue else { return false }
            return try await self.kinds(nodes.client, id).contains("lock_broadcast")
        }
        _ = try await fixture.rpc.call("hub_mine", [.number("1")])
        let outcome = try await paying.value
        switch (outcome, expectingFailure) {
        case (.success(let result), false): return result
        case (.failure(let error), true): return .object(["message": .string("\(error)")])
        default:
            XCTFail("pay ended \(outcome)")
            throw CancellationError()
        }
    }

    private func mineUntil(_ fixture: DaemonFixture, _ node: HubDaemonNode, _ id: String, is kind: String) async throws {
        for _ in 0..<10 {
            if try await kinds(node, id).last == kind { return }
            _ = try await fixture.rpc.call("hub_mine", [.number("1")])
            try await Task.sleep(nanoseconds: 300_000_000)
        }
        try await waitFor("swap \(id) is \(kind)") { try await self.kinds(node, id).last == kind }
    }

    /// A transaction in a block of the hub's chain (the kernel validated it): its first
    /// input's witness items (hex) and its height.
    private func minedTransaction(_ fixture: DaemonFixture, _ txid: String) async throws -> (witness: [String], height: Int64) {
        let found = try await fixture.rpc.call("getrawtransaction", [.string(txid), .bool(true)])
        let blockhash = try XCTUnwrap(found["blockhash"]?.stringValue, "\(txid) is in no block")
        let header = try await fixture.rpc.call("getblockheader", [.string(blockhash)])
        let witness = found["vin"]?.arrayValue?.first?["txinwitness"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return (witness, try XCTUnwrap(header["height"]?.int64Value))
    }

    private func kinds(_ node: HubDaemonNode, _ id: String) async throws -> [String] {
        try await node.node.result("swap.show", ["id": .string(id)])["events"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
    }

    private func lastData(_ node: HubDaemonNode, _ id: String) async throws -> JSONValue {
        try await node.node.result("swap.show", ["id": .string(id)])["events"]?.arrayValue?.last?["data"] ?? .object([:])
    }

    private func waitFor(_ what: String, seconds: Int = 60, file: StaticString = #filePath, line: UInt = #line,
                         _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        XCTFail("timed out waiting until \(what)", file: file, line: line)
        throw CancellationError()
    }

    private func stop(_ nodes: Nodes, _ fixture: DaemonFixture) async {
        for node in [nodes.client, nodes.erin, nodes.provider] { try? await node.node.stop() }
        await fixture.shutDown()
    }
}
