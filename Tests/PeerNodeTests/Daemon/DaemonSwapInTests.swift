import Bitcoin
import Foundation
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// `swap-in` through a daemon's control API, on the regtest hub: the daemon's submarine
/// engine (as `NodeEngines` builds it) asks a contact that swaps on-chain to Lightning (a
/// scripted provider dialled over TCP), locks from savings, and ends `paid` with the
/// preimage once the provider paid the node's own invoice.
final class DaemonSwapInTests: XCTestCase {
    private static let engines = NodeEngines.factory(settings: NodeEngines.Settings(
        followerPollMilliseconds: 200, confirmationWaitMilliseconds: 10_000, giveUpSeconds: 600))
    private let amount: Int64 = 20_000

    /// Also: once paid, `swaps` and `swap show` give the preimage and its source (here the
    /// node's own settled invoice, before any claim is mined), and no route of the status
    /// API carries it.
    func testSwapInPaysTheNodesOwnInvoiceFromSavings() async throws {
        let fixture = try await DaemonFixture()
        let daveLN = try await fixture.hub.lightning.addNode(name: "dave", balanceSat: 0)
        let providerLN = try await fixture.hub.lightning.addNode(name: "subprov", balanceSat: 1_000_000, plainHTTP: true)
        let dave = try await fixture.startNode("dave", lightning: daveLN, extra: ["provider=0", "status_listen=127.0.0.1:0"],
                                               engines: Self.engines)
        let rpc = fixture.rpc
        let lnd = try await LNDRESTClient.connect(
            configuration: LNDRESTClient.Configuration(host: "127.0.0.1", port: providerLN.port,
                                                       macaroon: try XCTUnwrap([UInt8](hex: providerLN.macaroonHex)),
                                                       network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                       subscriptionRetryMilliseconds: 200),
            sleeper: fixture.loop.sleeper,
            connector: { [loop = fixture.loop] host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) })
        let chain = SubmarineScriptedProvider.Chain(
            tipHeight: { Int(try await rpc.call("getblockcount", []).int64Value ?? 0) },
            broadcast: { _ = try await rpc.call("sendrawtransaction", [.string($0.serialized.hex)]) })
        // It offers ln_to_onchain too: `Router` drops offers without it (the rail-choice router's to change).
        let provider = try SubmarineScriptedProvider(chain: chain, sleeper: fixture.loop.sleeper, lnd: lnd, seed: 0x63,
                                                     reverseLiquiditySat: 10_000_000)
        let port = try await provider.listen(loop: fixture.loop)
        do {
            _ = try await rpc.call("hub_setfeeestimate", [.number("1000")])
            let fresh = try await dave.node.result("wallet.address")
            _ = try await rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.005")])
            try await waitFor("dave's savings are confirmed") {
                try await dave.node.result("wallet.balance")["confirmed_sat"] == .integer(500_000)
            }
            _ = try await dave.node.result("contacts.add", [
                "name": .string("subprov"), "pubky": .string(provider.identity.pubky.z32), "host": .string("127.0.0.1"),
                "port": .integer(Int64(port))])
            let daveBefore = try fixture.hub.lightning.network.node("dave").balanceMsat

            let node = dave.node
            let lines = ProgressLines()
            let swapIn = Task {
                try await node.client.send(ControlMessage.Request(command: "swap-in", args: .object(["amount_sat": .integer(20_000)])),
                                           progress: { lines.append($0) })
            }
            // The lock goes out, then a block confirms it.
            let (swapID, lock, preimage) = try await providerPays(dave: dave, provider: provider, rpc: rpc, failing: {
                let swaps = try? await dave.node.result("swaps")
                swapIn.cancel()
                return "swaps: \(String(describing: swaps)); swap-in: \(String(describing: try? await swapIn.value)); lines: \(lines.all)"
            })

            let result = try await swapIn.value.get()
            XCTAssertEqual(result["status"], .string("paid"))
            XCTAssertEqual(result["preimage"], .string(preimage.hex), "the preimage is the proof of payment")
            XCTAssertEqual(result["own_invoice"], .bool(true))
            XCTAssertEqual(result["lock_total_sat"], .integer(lock.value))
            XCTAssertEqual(result["provider"]?["name"], .string("subprov"))
            let lockFee = try XCTUnwrap(result["lock_fee_sat"]?.int64Value)
            XCTAssertEqual(result["savings_spent_sat"], .integer(lock.value + lockFee))
            XCTAssertEqual(try fixture.hub.lightning.network.node("dave").balanceMsat - daveBefore, UInt64(amount) * 1_000,
                           "the spending balance grew by exactly the amount")
            try await proofShown(dave, swapID: swapID, preimage: preimage, source: "settled_invoice", loop: fixture.loop)

            _ = try await rpc.call("hub_mine", [.number("1")])
            try await waitFor("the swap completes") { try await self.lastKind(dave, swapID) == "completed" }
            try await waitFor("savings fell by exactly the lock total and its fee") {
                let balance = try await dave.node.result("wallet.balance")
                return balance["total_sat"] == .integer(500_000 - lock.value - lockFee)
            }
            let listed = try await dave.node.result("swaps")["swaps"]?.arrayValue?.first
            XCTAssertEqual(listed?["kind"], .string("swap-in"))
            let report = try await dave.node.result("report")
            XCTAssertEqual(report["net_msat"], .integer((amount - lock.value - lockFee) * 1_000),
                           "the books: Lightning +amount, savings -(lock total + lock fee): \(report)")
        } catch {
            await provider.shutDown()
            try? await dave.node.stop()
            await fixture.shutDown()
            throw error
        }
        await provider.shutDown()
        try await dave.node.stop()
        await fixture.shutDown()
    }

    /// `pay erin 20000` where erin takes only Lightning and dave holds only savings: dave asks
    /// erin for a signed invoice, the provider pays it against dave's lock, erin's Lightning
    /// balance grows by exactly 20,000 sat, and dave's savings fall by the lock and its fee.
    func testPayingALightningOnlyContactFromSavings() async throws {
        let fixture = try await DaemonFixture()
        let daveLN = try await fixture.hub.lightning.addNode(name: "dave", balanceSat: 0)
        let providerLN = try await fixture.hub.lightning.addNode(name: "subprov", balanceSat: 1_000_000, plainHTTP: true)
        let erinLN = try await fixture.hub.lightning.addNode(name: "erin", balanceSat: 0, plainHTTP: true)
        let dave = try await fixture.startNode("dave", lightning: daveLN, extra: ["provider=0"], engines: Self.engines)
        let rpc = fixture.rpc
        let provider = try SubmarineScriptedProvider(chain: Self.chain(rpc), sleeper: fixture.loop.sleeper,
                                                     lnd: try await Self.lnd(providerLN, fixture), seed: 0x63,
                                                     reverseLiquiditySat: 10_000_000)
        let providerPort = try await provider.listen(loop: fixture.loop)
        let erin = try await LightningOnlyPayee.start(lnd: try await Self.lnd(erinLN, fixture), loop: fixture.loop)
        do {
            _ = try await rpc.call("hub_setfeeestimate", [.number("1000")])
            let fresh = try await dave.node.result("wallet.address")
            _ = try await rpc.call("hub_fund", [.string(try XCTUnwrap(fresh["address"]?.stringValue)), .number("0.005")])
            try await waitFor("dave's savings are confirmed") {
                try await dave.node.result("wallet.balance")["confirmed_sat"] == .integer(500_000)
            }
            for (name, pubky, port) in [("subprov", provider.identity.pubky, providerPort), ("erin", erin.identity.pubky, erin.port)] {
                _ = try await dave.node.result("contacts.add", [
                    "name": .string(name), "pubky": .string(pubky.z32), "host": .string("127.0.0.1"), "port": .integer(Int64(port))])
            }
            let erinBefore = try fixture.hub.lightning.network.node("erin").balanceMsat

            let node = dave.node
            let lines = ProgressLines()
            let paying = Task {
                try await node.client.send(ControlMessage.Request(command: "pay", args: .object([
                    "contact": .string("erin"), "amount_sat": .integer(20_000)])), progress: { lines.append($0) })
            }
            let (swapID, lock, preimage) = try await providerPays(dave: dave, provider: provider, rpc: rpc,
                                                          failing: { "lines: \(lines.all)" })

            let result = try await paying.value.get()
            XCTAssertEqual(result["route"], .string("submarine"))
            XCTAssertEqual(result["contact"], .string("erin"))
            XCTAssertEqual(result["preimage"], .string(preimage.hex))
            XCTAssertEqual(result["preimage_source"], .string("claim"))
            XCTAssertEqual(try fixture.hub.lightning.network.node("erin").balanceMsat - erinBefore, UInt64(amount) * 1_000,
                           "erin got exactly 20,000 sat")
            XCTAssertTrue(lines.all.contains { $0["stage"] == .string("route")
                && $0["detail"]?.stringValue?.contains("takes only Lightning") == true }, "\(lines.all)")
            let lockFee = try XCTUnwrap(result["lock_fee_sat"]?.int64Value)
            _ = try await rpc.call("hub_mine", [.number("1")])
            try await waitFor("the swap completes") { try await self.lastKind(dave, swapID) == "completed" }
            try await waitFor("savings fell by exactly the lock total and its fee") {
                try await dave.node.result("wallet.balance")["total_sat"] == .integer(500_000 - lock.value - lockFee)
            }
        } catch {
            await erin.shutDown()
            await provider.shutDown()
            try? await dave.node.stop()
            await fixture.shutDown()
            throw error
        }
        await erin.shutDown()
        await provider.shutDown()
        try await dave.node.stop()
        await fixture.shutDown()
    }

    private static func chain(_ rpc: BitcoinCoreRPC) -> SubmarineScriptedProvider.Chain {
        SubmarineScriptedProvider.Chain(
            tipHeight: { Int(try await rpc.call("getblockcount", []).int64Value ?? 0) },
            broadcast: { _ = try await rpc.call("sendrawtransaction", [.string($0.serialized.hex)]) })
    }

    private static func lnd(_ endpoint: LightningEndpoint, _ fixture: DaemonFixture) async throws -> LNDRESTClient {
        try await LNDRESTClient.connect(
            configuration: LNDRESTClient.Configuration(host: "127.0.0.1", port: endpoint.port,
                                                       macaroon: try XCTUnwrap([UInt8](hex: endpoint.macaroonHex)),
                                                       network: .regtest, requestTimeoutMilliseconds: 10_000,
                                                       subscriptionRetryMilliseconds: 200),
            sleeper: fixture.loop.sleeper,
            connector: { [loop = fixture.loop] host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) })
    }

    /// The scripted provider's part once dave's lock is out: one block confirms it, then the
    /// provider pays the invoice and claims the lock. The swap's id, the lock as dave
    /// recorded it, and the preimage.
    private func providerPays(dave: HubDaemonNode, provider: SubmarineScriptedProvider, rpc: BitcoinCoreRPC,
                              failing: () async -> String) async throws -> (String, LockOutput, [UInt8]) {
        var swapID = ""
        try await waitFor("the lock is broadcast", seconds: 20, failing: failing) {
            guard let listed = try await dave.node.result("swaps")["swaps"]?.arrayValue?.first,
                  let id = listed["id"]?.stringValue else { return false }
            swapID = id
            return try await self.lastKind(dave, id) == "lock_broadcast"
        }
        _ = try await rpc.call("hub_mine", [.number("1")])
        try await waitFor("the lock is confirmed") { try await self.lastKind(dave, swapID) == "lock_confirmed" }
        let swap = try await XCTUnwrapAsync(await provider.onlySwap)
        let shown = try await dave.node.result("swap.show", ["id": .string(swapID)])
        let intent = try XCTUnwrap(shown["events"]?.arrayValue?.first { $0["kind"] == .string("lock_intent") }?["data"])
        let lock = LockOutput(outPoint: OutPoint(txid: try TransactionID(hex: try XCTUnwrap(intent["lock"]?["txid"]?.stringValue)),
                                                 index: UInt32(try XCTUnwrap(intent["lock"]?["vout"]?.int64Value))),
                              value: try XCTUnwrap(intent["lock"]?["value_sat"]?.int64Value))
        let preimage = try await provider.payInvoice(of: swap)
        _ = try await provider.claim(swap, lock: lock, preimage: preimage)
        return (swapID, lock, preimage)
    }

    /// `swaps` and `swap show` name the preimage and its source; the status API's routes
    /// (`/api/*`, `/metrics`, the dashboard) never carry it.
    private func proofShown(_ node: HubDaemonNode, swapID: String, preimage: [UInt8], source: String,
                            loop: EventLoop) async throws {
        try await waitFor("the swap shows its proof of payment") {
            let row = try await node.node.result("swaps")["swaps"]?.arrayValue?.first { $0["id"] == .string(swapID) }
            return row?["preimage"] == .string(preimage.hex)
        }
        let row = try await node.node.result("swaps")["swaps"]?.arrayValue?.first { $0["id"] == .string(swapID) }
        XCTAssertEqual(row?["preimage_source"], .string(source))
        let shown = try await node.node.result("swap.show", ["id": .string(swapID)])
        XCTAssertEqual(shown["proof_of_payment"]?["preimage"], .string(preimage.hex))
        XCTAssertEqual(shown["proof_of_payment"]?["preimage_source"], .string(source))
        let http = StatusHTTP(port: try XCTUnwrap(node.node.ready.statusPort), loop: loop)
        let token = try StatusHTTP.token(datadir: node.datadir)
        for path in StatusAPITests.shapes.map(\.path) + ["/metrics", "/", "/dashboard.js"] {
            let response = try await http.get(path, bearer: token)
            XCTAssertEqual(response.status.code, 200, path)
            let body = String(decoding: response.body, as: UTF8.self).lowercased()
            XCTAssertFalse(body.contains(preimage.hex), "\(path) carries the preimage")
        }
        let swaps = try await http.json("/api/swaps", token: token)
        XCTAssertTrue(swaps["live"]?.arrayValue?.contains { $0["id"] == .string(swapID) } == true, "the swap is listed there")
        await http.shutDown()
    }

    private func lastKind(_ node: HubDaemonNode, _ id: String) async throws -> String? {
        let shown = try await node.node.result("swap.show", ["id": .string(id)])
        return shown["events"]?.arrayValue?.last?["kind"]?.stringValue
    }

    private func waitFor(_ what: String, seconds: Int = 60, file: StaticString = #filePath, line: UInt = #line,
                         failing: () async -> String = { "" }, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        XCTFail("timed out waiting until \(what) \(await failing())", file: file, line: line)
        throw CancellationError()
    }
}

/// Progress lines as they arrive.
private final class ProgressLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [JSONValue] = []

    func append(_ line: JSONValue) { lock.withLock { lines.append(line) } }
    var all: [JSONValue] { lock.withLock { lines } }
}

/// A contact that takes only Lightning: its Endpoints name a `lightning` entry and no
/// address, and it answers InvoiceRequests with invoices of its own LND node, signed by
/// its identity (`ContactInvoiceDesk`, as a daemon does).
private final class LightningOnlyPayee: Sendable {
    let identity: NodeIdentity
    let server: PeerServer
    let listener: PeerListener
    var port: Int { listener.port }

    private init(identity: NodeIdentity, server: PeerServer, listener: PeerListener) {
        self.identity = identity
        self.server = server
        self.listener = listener
    }

    static func start(lnd: LNDRESTClient, loop: EventLoop) async throws -> LightningOnlyPayee {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x65, count: 32)))
        let desk = ContactInvoiceDesk(identity: identity, lightning: lnd,
                                      limits: ContactInvoiceLimits(maximumMsat: 1_000_000_000), isContact: { _ in true })
        let server = PeerServer(identity: identity, sleeper: loop.sleeper, handlers: PeerHandlers(onRequest: { bytes, peer in
            switch try? SwapMessage(bytes: bytes) {
            case .endpointsRequest(let request)?:
                return Endpoints(requestID: request.requestID,
                                 endpoints: [.lightning(pubky: identity.pubky, network: "regtest")]).encoded
            case .invoiceRequest(let request)?:
                return await desk.answer(request, from: peer)
            default:
                return Reject(requestID: "unknown", code: .invalidRequest, reason: "not served").encoded
            }
        }))
        let listener = try await PeerListener.start(server: server, loop: loop)
        return LightningOnlyPayee(identity: identity, server: server, listener: listener)
    }

    func shutDown() async {
        await listener.close()
        await server.shutdown()
    }
}
