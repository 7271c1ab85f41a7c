import Bitcoin
import Foundation
import Lightning
import Regtest
import Transport
import XCTest

/// The server's JSON, read with Foundation rather than the node's own types: LND's field
/// names, bytes in standard base64, 64-bit integers as strings, 32-bit ones as numbers,
/// enums by name, and LND's error bodies and statuses.
final class LNDRESTShapeTests: XCTestCase {
    private var hub: LNDTestHub!
    private var http: HTTPClient!

    override func setUp() async throws {
        hub = try await LNDTestHub.start([("alice", 10_000_000_000), ("bob", 0)])
        http = hub.rawClient(macaroonHex: hub.servers["bob"]!.macaroonHex)
    }

    override func tearDown() async throws {
        await http.shutDown()
        await hub.shutDown()
    }

    private func endpoint(_ node: String = "bob") -> HTTPEndpoint {
        HTTPEndpoint(host: "127.0.0.1", port: hub.servers[node]!.port)
    }

    private func get(_ target: String, client: HTTPClient? = nil) async throws -> (Int, [String: Any]) {
        let response = try await (client ?? http).send(HTTPRequest(method: .get, target: target), to: endpoint())
        return (response.status.code, try object(response.body))
    }

    private func post(_ target: String, _ body: String, node: String = "bob") async throws -> (Int, [String: Any]) {
        let client = node == "bob" ? http! : hub.rawClient(macaroonHex: hub.servers[node]!.macaroonHex)
        let response = try await client.send(HTTPRequest(method: .post, target: target, body: Array(body.utf8)),
                                             to: endpoint(node))
        if client !== http { await client.shutDown() }
        return (response.status.code, try object(response.body))
    }

    private func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], String(decoding: bytes, as: UTF8.self))
    }

    private func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    private func addHold(_ seed: UInt8, cltv: Int = 144) async throws -> (hash: [UInt8], request: String, reply: [String: Any]) {
        let hash = SHA256.hash(preimage(seed))
        let (status, reply) = try await post("/v2/invoices/hodl", """
            {"hash":"\(base64(hash))","value_msat":"250000000","memo":"shape","expiry":"600","cltv_expiry":"\(cltv)"}
            """)
        XCTAssertEqual(status, 200)
        return (hash, try XCTUnwrap(reply["payment_request"] as? String), reply)
    }

    func testGetInfoShape() async throws {
        let (status, info) = try await get("/v1/getinfo")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(Set(info.keys), [
            "version", "commit_hash", "identity_pubkey", "alias", "color", "num_pending_channels",
            "num_active_channels", "num_inactive_channels", "num_peers", "block_height", "block_hash",
            "best_header_timestamp", "synced_to_chain", "synced_to_graph", "testnet", "chains", "uris", "features",
            "require_htlc_interceptor", "store_final_htlc_resolutions",
        ])
        XCTAssertEqual(info["identity_pubkey"] as? String, try hub.network.node("bob").identityKey.compressed.hex)
        // uint32: a JSON number; int64: a string.
        XCTAssertEqual(info["block_height"] as? Int, SimEnvironment.startHeight)
        XCTAssertEqual(info["best_header_timestamp"] as? String, "0")
        XCTAssertEqual(info["block_hash"] as? String, String(repeating: "0f", count: 32))
        let chains = try XCTUnwrap(info["chains"] as? [[String: Any]])
        XCTAssertEqual(chains.first?["chain"] as? String, "bitcoin")
        XCTAssertEqual(chains.first?["network"] as? String, "regtest")
    }

    func testChannelBalanceShape() async throws {
        let http = hub.rawClient(macaroonHex: hub.servers["alice"]!.macaroonHex)
        let response = try await http.send(HTTPRequest(target: "/v1/balance/channels"), to: endpoint("alice"))
        await http.shutDown()
        let raw = String(decoding: response.body, as: UTF8.self)
        // alice funded her 10,000,000 sat channel: less the commitment fee (2,810 sat) and
        // the anchors (660 sat).
        XCTAssertTrue(raw.contains("\"local_balance\":{\"msat\":\"9996530000\",\"sat\":\"9996530\"}"), raw)
        XCTAssertTrue(raw.contains("\"balance\":\"9996530\""), raw)
        let balance = try object(response.body)
        for key in ["remote_balance", "unsettled_local_balance", "unsettled_remote_balance",
                    "pending_open_local_balance", "pending_open_remote_balance"] {
            XCTAssertEqual((balance[key] as? [String: Any])?["msat"] as? String, "0", key)
        }
    }

    /// `local_balance` counts the reserve, as LND's ChannelBalance sums each commitment's
    /// local balance; `/v1/channels` says how much of it is the reserve (1% of capacity),
    /// and what the funder's commitment costs (`commit_fee`, `commit_weight`, `fee_per_kw`:
    /// an anchor channel's, its fee already out of `local_balance`).
    func testListChannelsShapeCarriesTheReserve() async throws {
        let http = hub.rawClient(macaroonHex: hub.servers["alice"]!.macaroonHex)
        let response = try await http.send(HTTPRequest(target: "/v1/channels"), to: endpoint("alice"))
        await http.shutDown()
        XCTAssertEqual(response.status.code, 200)
        let channels = try XCTUnwrap(try object(response.body)["channels"] as? [[String: Any]])
        XCTAssertEqual(channels.count, 1)
        let channel = channels[0]
        XCTAssertEqual(channel["active"] as? Bool, true)
        XCTAssertEqual(channel["capacity"] as? String, "10000000")
        XCTAssertEqual(channel["local_balance"] as? String, "9996530")
        XCTAssertEqual(channel["commit_fee"] as? String, "2810")
        XCTAssertEqual(channel["commit_weight"] as? String, "1124")
        XCTAssertEqual(channel["fee_per_kw"] as? String, "2500")
        XCTAssertEqual(channel["commitment_type"] as? String, "ANCHORS")
        XCTAssertEqual(channel["local_chan_reserve_sat"] as? String, "100000")
        XCTAssertEqual((channel["local_constraints"] as? [String: Any])?["chan_reserve_sat"] as? String, "100000")
        XCTAssertEqual((channel["local_constraints"] as? [String: Any])?["dust_limit_sat"] as? String, "354")
        XCTAssertEqual(channel["initiator"] as? Bool, true)
        XCTAssertNotNil(channel["chan_id"] as? String)
        // bob, funded with nothing, still keeps the dust limit as its reserve.
        let (status, reply) = try await get("/v1/channels")
        XCTAssertEqual(status, 200)
        let bob = try XCTUnwrap((reply["channels"] as? [[String: Any]])?.first)
        XCTAssertEqual(bob["local_balance"] as? String, "0")
        XCTAssertEqual(bob["initiator"] as? Bool, false, "bob's peer opened his channel")
        XCTAssertEqual(bob["commit_fee"] as? String, "2810", "and pays its commitment's fee")
        XCTAssertEqual((bob["local_constraints"] as? [String: Any])?["chan_reserve_sat"] as? String, "354")
    }

    /// LND 0.18's gateway decodes a `bytes` URL value with Go's padded decoders, so an
    /// unpadded hash is refused there (later versions take both): the hub takes only the
    /// form every version takes, so a client that drops the padding fails in tests too.
    func testAURLHashWithoutPaddingIsRefusedAsLND018Does() async throws {
        let (hash, _, _) = try await addHold(0x72)
        let urlSafe = base64(hash).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let (padded, _) = try await get("/v2/invoices/lookup?payment_hash=\(urlSafe.replacingOccurrences(of: "=", with: "%3D"))")
        XCTAssertEqual(padded, 200)
        let (status, reply) = try await get("/v2/invoices/lookup?payment_hash=\(urlSafe.replacingOccurrences(of: "=", with: ""))")
        XCTAssertEqual(status, 400)
        XCTAssertEqual(reply["code"] as? Int, 3)
        XCTAssertTrue((reply["message"] as? String)?.contains("illegal base64 data") == true, "\(reply)")
    }

    func testHoldInvoiceLookupAndSettleShapes() async throws {
        let (hash, request, added) = try await addHold(0x71)
        XCTAssertEqual(Set(added.keys), ["payment_request", "add_index", "payment_addr"])
        XCTAssertEqual(added["add_index"] as? String, "1")
        let address = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(added["payment_addr"] as? String)))
        XCTAssertEqual(address.count, 32)

        // payment_hash in the query is base64url, padding percent-encoded.
        let urlHash = base64(hash).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "%3D")
        let (status, invoice) = try await get("/v2/invoices/lookup?payment_hash=\(urlHash)")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(invoice["r_hash"] as? String, base64(hash))
        XCTAssertEqual(invoice["r_preimage"] as? String, "")
        XCTAssertEqual(invoice["payment_addr"] as? String, base64(Array(address)))
        XCTAssertEqual(invoice["value"] as? String, "250000")
        XCTAssertEqual(invoice["value_msat"] as? String, "250000000")
        XCTAssertEqual(invoice["cltv_expiry"] as? String, "144")
        XCTAssertEqual(invoice["expiry"] as? String, "600")
        XCTAssertEqual(invoice["creation_date"] as? String, "\(SimEnvironment.startTime)")
        XCTAssertEqual(invoice["add_index"] as? String, "1")
        XCTAssertEqual(invoice["state"] as? String, "OPEN")
        XCTAssertEqual(invoice["settled"] as? Bool, false)
        XCTAssertEqual(invoice["payment_request"] as? String, request)
        XCTAssertEqual((invoice["htlcs"] as? [Any])?.count, 0)
        let features = try XCTUnwrap(invoice["features"] as? [String: [String: Any]])
        XCTAssertEqual(features["14"]?["name"] as? String, "payment-addr")
        XCTAssertEqual(features["14"]?["is_required"] as? Bool, true)

        // Paid from alice: the HTLC's heights are int32 numbers, its amount a string.
        let client = try await hub.client("alice")
        let payment = LNDIterator(client.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                    timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let (_, accepted) = try await get("/v2/invoices/lookup?payment_hash=\(urlHash)")
        XCTAssertEqual(accepted["state"] as? String, "ACCEPTED")
        let htlc = try XCTUnwrap((accepted["htlcs"] as? [[String: Any]])?.first)
        XCTAssertEqual(htlc["expiry_height"] as? Int, SimEnvironment.startHeight + 144 + 3)
        XCTAssertEqual(htlc["accept_height"] as? Int, SimEnvironment.startHeight)
        XCTAssertEqual(htlc["amt_msat"] as? String, "250000000")
        XCTAssertEqual(htlc["state"] as? String, "ACCEPTED")
        XCTAssertEqual(htlc["resolve_time"] as? String, "0")
        XCTAssertNotNil(htlc["chan_id"] as? String)

        let (settleStatus, settled) = try await post("/v2/invoices/settle", "{\"preimage\":\"\(base64(preimage(0x71)))\"}")
        XCTAssertEqual(settleStatus, 200)
        XCTAssertTrue(settled.isEmpty)
        let (_, after) = try await get("/v1/invoice/\(hash.hex)")
        XCTAssertEqual(after["state"] as? String, "SETTLED")
        XCTAssertEqual(after["r_preimage"] as? String, base64(preimage(0x71)))
        XCTAssertEqual(after["amt_paid_msat"] as? String, "250000000")
        XCTAssertEqual(after["amt_paid_sat"] as? String, "250000")
        XCTAssertEqual(after["settle_index"] as? String, "1")
        await client.shutDown()
    }

    func testSendPaymentStreamsResultLines() async throws {
        let (hash, request, _) = try await addHold(0x72)
        let alice = hub.rawClient(macaroonHex: hub.servers["alice"]!.macaroonHex)
        let body = "{\"payment_request\":\"\(request)\",\"fee_limit_sat\":\"100\",\"timeout_seconds\":60}"
        let stream = try await alice.stream(HTTPRequest(method: .post, target: "/v2/router/send", body: Array(body.utf8)),
                                            to: endpoint("alice"))
        XCTAssertEqual(stream.response.status, .ok)
        XCTAssertEqual(stream.response.headers.first(name: "transfer-encoding"), "chunked")
        var lines = stream.lines.makeAsyncIterator()
        let next = try await lines.next()
        let first = try XCTUnwrap(next)
        let envelope = try object(first)
        XCTAssertEqual(Array(envelope.keys), ["result"])
        let payment = try XCTUnwrap(envelope["result"] as? [String: Any])
        XCTAssertEqual(payment["payment_hash"] as? String, hash.hex)
        XCTAssertEqual(payment["payment_preimage"] as? String, String(repeating: "0", count: 64))
        XCTAssertEqual(payment["status"] as? String, "INITIATED")
        XCTAssertEqual(payment["failure_reason"] as? String, "FAILURE_REASON_NONE")
        XCTAssertEqual(payment["value_msat"] as? String, "250000000")
        XCTAssertEqual(payment["value_sat"] as? String, "250000")
        XCTAssertEqual(payment["payment_index"] as? String, "1")
        XCTAssertEqual(payment["creation_time_ns"] as? String, "\(SimEnvironment.startTime)000000000")
        XCTAssertEqual((payment["htlcs"] as? [Any])?.count, 0, "no HTLC before the route is found")

        // IN_FLIGHT carries the HTLC that went out, as LND's lnrpc.HTLCAttempt.
        let secondLine = try await lines.next()
        let inFlight = try XCTUnwrap(object(try XCTUnwrap(secondLine))["result"] as? [String: Any])
        XCTAssertEqual(inFlight["status"] as? String, "IN_FLIGHT")
        let attempt = try XCTUnwrap((inFlight["htlcs"] as? [[String: Any]])?.first)
        XCTAssertEqual((inFlight["htlcs"] as? [Any])?.count, 1)
        XCTAssertEqual(attempt["attempt_id"] as? String, "1")
        XCTAssertEqual(attempt["status"] as? String, "IN_FLIGHT")
        XCTAssertEqual(attempt["attempt_time_ns"] as? String, "\(SimEnvironment.startTime)000000000")
        XCTAssertEqual(attempt["resolve_time_ns"] as? String, "0")
        XCTAssertTrue(attempt["failure"] is NSNull)
        XCTAssertEqual(attempt["preimage"] as? String, "")
        let route = try XCTUnwrap(attempt["route"] as? [String: Any])
        // The payer's own HTLC: tip + final delta 144 + LND's BlockPadding 3 + the routing node's 40.
        XCTAssertEqual(route["total_time_lock"] as? Int, SimEnvironment.startHeight + 144 + 3 + 40)
        XCTAssertEqual(route["total_amt_msat"] as? String, "250026000")
        XCTAssertEqual(route["total_fees_msat"] as? String, "26000")
        XCTAssertEqual(route["total_amt"] as? String, "250026")
        XCTAssertEqual(route["total_fees"] as? String, "26")
        let hops = try XCTUnwrap(route["hops"] as? [[String: Any]])
        XCTAssertEqual(hops.count, 2, "payer -> routing node -> payee")
        // Each hop's expiry is the HTLC it forwards: the payee's, tip + 144 + 3.
        XCTAssertEqual(hops.map { $0["expiry"] as? Int }, [SimEnvironment.startHeight + 147, SimEnvironment.startHeight + 147])
        XCTAssertEqual(hops.map { $0["fee_msat"] as? String }, ["26000", "0"])
        XCTAssertEqual(hops.map { $0["amt_to_forward_msat"] as? String }, ["250000000", "250000000"])
        XCTAssertEqual(hops[1]["pub_key"] as? String, try hub.network.node("bob").identityKey.compressed.hex)
        XCTAssertNotNil(hops[0]["chan_id"] as? String)
        let mpp = try XCTUnwrap(hops[1]["mpp_record"] as? [String: Any])
        XCTAssertEqual(mpp["total_amt_msat"] as? String, "250000000")
        XCTAssertEqual((mpp["payment_addr"] as? String).flatMap { Data(base64Encoded: $0) }?.count, 32)

        _ = try await post("/v2/invoices/settle", "{\"preimage\":\"\(base64(preimage(0x72)))\"}")
        var last: [String: Any] = [:]
        while let line = try await lines.next() { last = try XCTUnwrap(object(line)["result"] as? [String: Any]) }
        XCTAssertEqual(last["status"] as? String, "SUCCEEDED")
        XCTAssertEqual(last["payment_preimage"] as? String, preimage(0x72).hex)
        XCTAssertEqual(last["fee_msat"] as? String, "26000")
        XCTAssertEqual(last["fee_sat"] as? String, "26")
        let settled = try XCTUnwrap((last["htlcs"] as? [[String: Any]])?.first)
        XCTAssertEqual(settled["status"] as? String, "SUCCEEDED")
        XCTAssertEqual(settled["preimage"] as? String, base64(preimage(0x72)))
        XCTAssertEqual(settled["resolve_time_ns"] as? String, "\(SimEnvironment.startTime)000000000")
        await alice.shutDown()
    }

    /// A held payment the payee cancels: its attempt FAILED with the payee's BOLT 4
    /// failure, reported from the last hop at the payee's height.
    func testACancelledHoldInvoiceFailsTheAttemptWithThePayeesFailure() async throws {
        let (hash, request, _) = try await addHold(0x74)
        let alice = hub.rawClient(macaroonHex: hub.servers["alice"]!.macaroonHex)
        let body = "{\"payment_request\":\"\(request)\",\"fee_limit_sat\":\"100\",\"timeout_seconds\":60}"
        let stream = try await alice.stream(HTTPRequest(method: .post, target: "/v2/router/send", body: Array(body.utf8)),
                                            to: endpoint("alice"))
        var lines = stream.lines.makeAsyncIterator()
        _ = try await lines.next()
        _ = try await lines.next()
        let (status, _) = try await post("/v2/invoices/cancel", "{\"payment_hash\":\"\(base64(hash))\"}")
        XCTAssertEqual(status, 200)
        var last: [String: Any] = [:]
        while let line = try await lines.next() { last = try XCTUnwrap(object(line)["result"] as? [String: Any]) }
        XCTAssertEqual(last["status"] as? String, "FAILED")
        XCTAssertEqual(last["failure_reason"] as? String, "FAILURE_REASON_INCORRECT_PAYMENT_DETAILS")
        let attempt = try XCTUnwrap((last["htlcs"] as? [[String: Any]])?.first)
        XCTAssertEqual(attempt["status"] as? String, "FAILED")
        let failure = try XCTUnwrap(attempt["failure"] as? [String: Any])
        XCTAssertEqual(failure["code"] as? String, "INCORRECT_OR_UNKNOWN_PAYMENT_DETAILS")
        XCTAssertEqual(failure["failure_source_index"] as? Int, 2)
        XCTAssertEqual(failure["height"] as? Int, SimEnvironment.startHeight)
        XCTAssertEqual(failure["htlc_msat"] as? String, "250000000")
        await alice.shutDown()
    }

    /// LND's gateway sends a plain reply over 2048 bytes chunked (Go's net/http buffers
    /// 2048 bytes before it chooses): the hub does too, and the node's client reads it.
    func testALargePlainReplyIsChunkedAndTheClientReadsIt() async throws {
        let bob = try await hub.client("bob")
        let memo = String(repeating: "a long memo ", count: 50)
        let hash = SHA256.hash(preimage(0x75))
        _ = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: 250_000_000, memo: memo, expirySeconds: 600,
                                         cltvExpiry: 144)
        let urlHash = LNDBase64.encodeURLSafe(hash)
        let big = try await http.send(HTTPRequest(method: .get, target: "/v2/invoices/lookup?payment_hash=\(urlHash)"),
                                      to: endpoint())
        XCTAssertEqual(big.status.code, 200)
        XCTAssertGreaterThan(big.body.count, 2048)
        XCTAssertEqual(big.headers.first(name: "transfer-encoding"), "chunked")
        XCTAssertNil(big.headers.first(name: "content-length"))
        XCTAssertEqual(try object(big.body)["memo"] as? String, memo)
        // The node's client reads the chunked reply like any other.
        let status = try await bob.lookupInvoice(paymentHash: hash)
        XCTAssertEqual(status.memo, memo)
        XCTAssertEqual(status.state, .open)

        // A reply that fits in 2048 bytes keeps its Content-Length, as LND's does.
        let small = try await http.send(HTTPRequest(method: .get, target: "/v1/getinfo"), to: endpoint())
        XCTAssertLessThanOrEqual(small.body.count, 2048)
        XCTAssertEqual(small.headers.first(name: "content-length"), "\(small.body.count)")
        XCTAssertNil(small.headers.first(name: "transfer-encoding"))
        await bob.shutDown()
    }

    /// `hub_ln_fault` reports the sends per payment hash, refused ones included, so a
    /// scenario can check that one payment was sent exactly once.
    func testSendsAreCountedPerPaymentHashRefusalsIncluded() async throws {
        let (first, firstRequest, _) = try await addHold(0x76)
        let (second, secondRequest, _) = try await addHold(0x77)
        let alice = hub.rawClient(macaroonHex: hub.servers["alice"]!.macaroonHex)
        var open: [HTTPLineStream] = []
        for (request, expected) in [(firstRequest, 200), (firstRequest, 409), (secondRequest, 200)] {
            let body = "{\"payment_request\":\"\(request)\",\"fee_limit_sat\":\"100\",\"timeout_seconds\":60}"
            let stream = try await alice.stream(HTTPRequest(method: .post, target: "/v2/router/send", body: Array(body.utf8)),
                                                to: endpoint("alice"))
            XCTAssertEqual(stream.response.status.code, expected)
            open.append(stream)
        }
        let faults = hub.servers["alice"]!.handler.faults
        XCTAssertEqual(faults.sendRequests, 3)
        XCTAssertEqual(faults.sendRequestsByHash, [first.hex: 2, second.hex: 1])
        XCTAssertEqual(open.map(\.response.status.code), [200, 409, 200], "the streams stay open until here")
        await alice.shutDown()
    }

    func testDecodePayReqShape() async throws {
        let (hash, request, added) = try await addHold(0x73, cltv: 200)
        let (status, payReq) = try await get("/v1/payreq/\(request)")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(payReq["destination"] as? String, try hub.network.node("bob").identityKey.compressed.hex)
        XCTAssertEqual(payReq["payment_hash"] as? String, hash.hex)
        XCTAssertEqual(payReq["num_msat"] as? String, "250000000")
        XCTAssertEqual(payReq["num_satoshis"] as? String, "250000")
        XCTAssertEqual(payReq["cltv_expiry"] as? String, "200")
        XCTAssertEqual(payReq["expiry"] as? String, "600")
        XCTAssertEqual(payReq["description"] as? String, "shape")
        XCTAssertEqual(payReq["payment_addr"] as? String, added["payment_addr"] as? String)

        let (badStatus, bad) = try await get("/v1/payreq/lnbcrt1notaninvoice")
        XCTAssertEqual(badStatus, 500)
        XCTAssertEqual(bad["code"] as? Int, 2)
        XCTAssertTrue((bad["message"] as? String)?.hasPrefix("invalid payment request") == true)
    }

    func testErrorShapes() async throws {
        // No macaroon: LND's interceptor error, code 2 with HTTP 500.
        let anonymous = hub.rawClient(macaroonHex: nil)
        let (status, error) = try await get("/v1/getinfo", client: anonymous)
        XCTAssertEqual(status, 500)
        XCTAssertEqual(error["code"] as? Int, 2)
        XCTAssertEqual(error["message"] as? String, "expected 1 macaroon, got 0")
        XCTAssertEqual((error["details"] as? [Any])?.count, 0)

        // On a streamed call the same error comes inside {"error": ...}.
        let response = try await anonymous.send(HTTPRequest(method: .post, target: "/v2/router/send", body: Array("{}".utf8)),
                                                to: endpoint())
        XCTAssertEqual(response.status.code, 500)
        let wrapped = try XCTUnwrap(object(response.body)["error"] as? [String: Any])
        XCTAssertEqual(wrapped["message"] as? String, "expected 1 macaroon, got 0")
        await anonymous.shutDown()

        // Unknown invoice: NotFound, HTTP 404.
        let unknown = base64(SHA256.hash(preimage(0xEE))).replacingOccurrences(of: "=", with: "%3D")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let (notFound, body) = try await get("/v2/invoices/lookup?payment_hash=\(unknown)")
        XCTAssertEqual(notFound, 404)
        XCTAssertEqual(body["code"] as? Int, 5)
        XCTAssertEqual(body["message"] as? String, "unable to locate invoice")

        // Settling an OPEN invoice: LND's plain error.
        _ = try await addHold(0x74)
        let (stillOpen, openError) = try await post("/v2/invoices/settle", "{\"preimage\":\"\(base64(preimage(0x74)))\"}")
        XCTAssertEqual(stillOpen, 500)
        XCTAssertEqual(openError["message"] as? String, "invoice still open")

        // A body the gateway cannot read: InvalidArgument, HTTP 400.
        let (badBody, parseError) = try await post("/v2/invoices/cancel", "{\"payment_hash\": 7}")
        XCTAssertEqual(badBody, 400)
        XCTAssertEqual(parseError["code"] as? Int, 3)

        // A field the message does not have: LND's decoder refuses it (InvalidArgument,
        // HTTP 400), on a unary and on a streamed call alike.
        let (misspelt, misspeltError) = try await post("/v2/invoices/cancel", "{\"paymenthash\": \"\"}")
        XCTAssertEqual(misspelt, 400)
        XCTAssertEqual(misspeltError["code"] as? Int, 3)
        XCTAssertEqual(misspeltError["message"] as? String, "proto: unknown field \"paymenthash\"")
        let payer = hub.rawClient(macaroonHex: hub.servers["alice"]!.macaroonHex)
        let sendUnknown = try await payer.send(HTTPRequest(method: .post, target: "/v2/router/send",
                                                           body: Array("{\"payment_request\":\"x\",\"fee_limit\":5}".utf8)),
                                               to: endpoint("alice"))
        await payer.shutDown()
        XCTAssertEqual(sendUnknown.status.code, 400)
        let sendError = try XCTUnwrap(object(sendUnknown.body)["error"] as? [String: Any])
        XCTAssertEqual(sendError["message"] as? String, "proto: unknown field \"fee_limit\"")

        // An unknown path, before any authentication.
        let (missing, missingBody) = try await get("/v1/nothing")
        XCTAssertEqual(missing, 404)
        XCTAssertEqual(missingBody["message"] as? String, "Not Found")
    }

    /// lnrpc AddInvoice over REST: int64 fields as strings both ways, bytes as base64, and
    /// a field `lnrpc.Invoice` does not have refused by the gateway (InvalidArgument, 400).
    func testAddInvoiceShapeAndAnUnknownFieldRefusedAsLND() async throws {
        let (misspelt, error) = try await post("/v1/invoices", "{\"value_msat\":\"1000\",\"expiry_seconds\":\"60\"}")
        XCTAssertEqual(misspelt, 400)
        XCTAssertEqual(error["code"] as? Int, 3)
        XCTAssertEqual(error["message"] as? String, "proto: unknown field \"expiry_seconds\"")
        let (status, added) = try await post("/v1/invoices", "{\"value_msat\":\"1000\",\"expiry\":\"60\",\"cltv_expiry\":\"40\"}")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(added["add_index"] as? String, "1", "uint64: a string")
        XCTAssertEqual((added["payment_addr"] as? String).flatMap { Data(base64Encoded: $0) }?.count, 32)
        let request = try XCTUnwrap(added["payment_request"] as? String)
        let (decodedStatus, decoded) = try await get("/v1/payreq/\(request)")
        XCTAssertEqual(decodedStatus, 200)
        XCTAssertEqual(decoded["num_msat"] as? String, "1000")
        XCTAssertEqual(decoded["num_satoshis"] as? String, "1")
        XCTAssertEqual(decoded["expiry"] as? String, "60")
        XCTAssertEqual(decoded["cltv_expiry"] as? String, "40")
    }

    func testPlainInvoiceIsSettledWhenPaid() async throws {
        let (status, added) = try await post("/v1/invoices", "{\"value\":\"1000\",\"memo\":\"coffee\"}")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(Set(added.keys), ["r_hash", "payment_request", "add_index", "payment_addr"])
        let hash = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(added["r_hash"] as? String)))
        let request = try XCTUnwrap(added["payment_request"] as? String)
        let alice = try await hub.client("alice")
        var last: PaymentUpdate?
        for try await update in alice.payInvoice(paymentRequest: request, feeLimitSat: 10, cltvLimit: 0, timeoutSeconds: 30) {
            last = update
        }
        guard case .succeeded(let revealed)? = last?.status else { return XCTFail("\(String(describing: last))") }
        XCTAssertEqual(SHA256.hash(revealed), Array(hash))
        let (_, invoice) = try await get("/v1/invoice/\(Array(hash).hex)")
        XCTAssertEqual(invoice["state"] as? String, "SETTLED")
        XCTAssertEqual(invoice["value_msat"] as? String, "1000000")
        await alice.shutDown()
    }
}
