import Bitcoin
import Foundation
import Lightning
import Regtest
import Transport
import XCTest

/// The simulator's macaroons are LND's (V2, LND's identifier, an HMAC chain from the
/// node's root key) and each call needs LND's permission: a call the macaroon does not
/// allow is refused as LND refuses it (code 2 "permission denied", HTTP 500).
final class LNDMacaroonPermissionTests: XCTestCase {
    private var hub: LNDTestHub!

    override func setUp() async throws {
        hub = try await LNDTestHub.start([("alice", 10_000_000_000), ("bob", 0)])
    }

    override func tearDown() async throws {
        await hub.shutDown()
    }

    private func call(_ node: String, _ macaroon: Macaroon?, _ method: HTTPMethod, _ target: String,
                      body: String? = nil) async throws -> (Int, [String: Any]) {
        let client = hub.rawClient(macaroonHex: macaroon?.encoded.hex)
        defer { Task { await client.shutDown() } }
        let response = try await client.send(HTTPRequest(method: method, target: target, body: body.map { Array($0.utf8) } ?? []),
                                             to: HTTPEndpoint(host: "127.0.0.1", port: hub.servers[node]!.port))
        var text = response.body
        // A streamed refusal is one {"error": ...} line.
        if let newline = text.firstIndex(of: 0x0A) { text = Array(text[..<newline]) }
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
        if let wrapped = object["error"] as? [String: Any] { object = wrapped }
        return (response.status.code, object)
    }

    private func assertPermissionDenied(_ answer: (Int, [String: Any]), file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answer.0, 500, file: file, line: line)
        XCTAssertEqual(answer.1["code"] as? Int, 2, file: file, line: line)
        XCTAssertEqual(answer.1["message"] as? String, "permission denied", file: file, line: line)
    }

    func testServedMacaroonsAreLNDsThree() throws {
        let macaroons = hub.servers["bob"]!.handler.macaroons
        for (macaroon, permissions) in [(macaroons.admin, LNDPermission.admin), (macaroons.invoice, LNDPermission.invoice),
                                        (macaroons.readOnly, LNDPermission.readOnly)] {
            let decoded = try Macaroon(decoding: macaroon.encoded)
            XCTAssertEqual(decoded.location, "lnd")
            XCTAssertEqual(try LNDMacaroonID(decoding: decoded.identifier).permissions, permissions)
            XCTAssertEqual(try LNDMacaroonID(decoding: decoded.identifier).storageID, Array("0".utf8))
        }
        XCTAssertEqual(hub.servers["bob"]!.macaroon, macaroons.admin.encoded)
    }

    func testInvoiceMacaroonCannotPay() async throws {
        let bob = hub.servers["bob"]!.handler.macaroons
        let alice = hub.servers["alice"]!.handler.macaroons
        // bob's invoice macaroon makes an invoice...
        let (status, invoice) = try await call("bob", bob.invoice, .post, "/v1/invoices", body: #"{"value":"1000"}"#)
        XCTAssertEqual(status, 200, "\(invoice)")
        let request = try XCTUnwrap(invoice["payment_request"] as? String)
        // ...alice's cannot pay it, nor read her balance or node info.
        let body = #"{"payment_request":"\#(request)","timeout_seconds":10,"fee_limit_sat":"100"}"#
        assertPermissionDenied(try await call("alice", alice.invoice, .post, "/v2/router/send", body: body))
        assertPermissionDenied(try await call("alice", alice.invoice, .get, "/v1/balance/channels"))
        assertPermissionDenied(try await call("alice", alice.invoice, .get, "/v1/getinfo"))
        // The readonly macaroon reads but cannot pay or settle.
        let read = try await call("alice", alice.readOnly, .get, "/v1/getinfo")
        XCTAssertEqual(read.0, 200)
        assertPermissionDenied(try await call("alice", alice.readOnly, .post, "/v2/router/send", body: body))
        assertPermissionDenied(try await call("bob", bob.readOnly, .post, "/v2/invoices/settle",
                                              body: #"{"preimage":"\#(LNDBase64.encode([UInt8](repeating: 1, count: 32)))"}"#))
        // Publishing a transaction needs onchain:write (WalletKit), which readonly lacks.
        assertPermissionDenied(try await call("bob", bob.readOnly, .post, "/v2/wallet/tx",
                                              body: #"{"tx_hex":"AQ==","label":"peernode"}"#))
        // Missing just invoices:write: LookupInvoiceV2 needs it, as in LND.
        let noInvoiceWrite = bob.bake(LNDPermission.admin.subtracting([LNDPermission("invoices", "write")]))
        let hash = LNDBase64.encodeURLSafe([UInt8](repeating: 2, count: 32))
        assertPermissionDenied(try await call("bob", noInvoiceWrite, .get, "/v2/invoices/lookup?payment_hash=\(hash)"))
        // With admin the payment goes through.
        let paid = try await call("alice", alice.admin, .post, "/v2/router/send", body: body)
        XCTAssertEqual(paid.0, 200, "\(paid.1)")
    }

    func testForgedOrForeignOrConstrainedMacaroonsAreRefused() async throws {
        let bob = hub.servers["bob"]!.handler.macaroons
        let mismatch = "verification failed: signature mismatch after caveat verification"
        // alice's admin macaroon at bob's node.
        let foreign = try await call("bob", hub.servers["alice"]!.handler.macaroons.admin, .get, "/v1/getinfo")
        XCTAssertEqual(foreign.0, 500)
        XCTAssertEqual(foreign.1["message"] as? String, mismatch)
        // The invoice macaroon with admin's permissions written into its identifier.
        var widened = bob.invoice
        widened.identifier = LNDMacaroonID(nonce: [UInt8](repeating: 0, count: 16), permissions: LNDPermission.admin).encoded
        let widenedAnswer = try await call("bob", widened, .get, "/v1/getinfo")
        XCTAssertEqual(widenedAnswer.1["message"] as? String, mismatch)
        // A caveat the simulator does not check is refused rather than ignored.
        let constrained = try await call("bob", bob.admin.adding(condition: "ipaddr 10.0.0.1"), .get, "/v1/getinfo")
        XCTAssertEqual(constrained.0, 500)
        XCTAssertTrue((constrained.1["message"] as? String)?.hasPrefix("caveat \"ipaddr 10.0.0.1\" not satisfied") == true,
                      "\(constrained.1)")
    }

    /// A constrained macaroon's refusal reaches the node's client as a refused macaroon.
    func testClientReportsARefusedCaveatAsUnauthorized() async throws {
        let constrained = hub.servers["bob"]!.handler.macaroons.admin.adding(condition: "ipaddr 10.0.0.1").encoded
        do {
            let client = try await LNDRESTClient.connect(configuration: hub.configuration("bob", macaroon: constrained),
                                                         sleeper: hub.loop.sleeper, connector: hub.connector)
            await client.shutDown()
            XCTFail("connected with a caveat the simulator does not check")
        } catch {
            guard case .unauthorized(_, let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasPrefix("caveat \"ipaddr 10.0.0.1\" not satisfied"), message)
        }
    }

    /// The node's client sees a permission refusal as a refused macaroon.
    func testClientReportsPermissionDeniedAsUnauthorized() async throws {
        let invoice = hub.servers["bob"]!.handler.macaroons.invoice.encoded
        do {
            let client = try await LNDRESTClient.connect(configuration: hub.configuration("bob", macaroon: invoice),
                                                         sleeper: hub.loop.sleeper, connector: hub.connector)
            await client.shutDown()
            XCTFail("connected with a macaroon without info:read")
        } catch {
            guard case .unauthorized(_, let message) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(message, "permission denied")
        }
    }
}
