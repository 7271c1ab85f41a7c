import Bitcoin
import Lightning
import Regtest
import Transport
import XCTest

/// What the client refuses or reports before any Lightning work: credentials, network,
/// an unreachable node, and a subscription whose stream keeps breaking.
final class LNDClientConnectionTests: XCTestCase {
    func testWrongMacaroonIsUnauthorized() async throws {
        let hub = try await LNDTestHub.start([("bob", 0)])
        let port = hub.servers["bob"]!.port
        let wrong = [UInt8](repeating: 0xAB, count: 32)
        let error = await lndExpectError {
            try await LNDRESTClient.connect(configuration: hub.configuration("bob", macaroon: wrong),
                                            sleeper: hub.loop.sleeper, connector: hub.connector)
        }
        XCTAssertEqual(error as? LightningBackendError,
                       .unauthorized(url: "http://127.0.0.1:\(port)",
                                     message: "verification failed: signature mismatch after caveat verification"))
        // The message says what to check and never shows the macaroon.
        let text = "\(error!)"
        XCTAssertTrue(text.contains("refused the macaroon"), text)
        XCTAssertFalse(text.contains(wrong.hex), text)

        // Another node's macaroon is just as wrong.
        let hub2 = try await LNDTestHub.start([("carol", 0)])
        let other = await lndExpectError {
            try await LNDRESTClient.connect(configuration: hub.configuration("bob", macaroon: hub2.servers["carol"]!.macaroon),
                                            sleeper: hub.loop.sleeper, connector: hub.connector)
        }
        guard case .unauthorized? = other as? LightningBackendError else { return XCTFail("\(String(describing: other))") }
        await hub2.shutDown()
        await hub.shutDown()
    }

    func testNodeOnAnotherNetworkIsRefused() async throws {
        let hub = try await LNDTestHub.start([("bob", 0)])
        let port = hub.servers["bob"]!.port
        let error = await lndExpectError {
            try await LNDRESTClient.connect(configuration: hub.configuration("bob", network: .testnet),
                                            sleeper: hub.loop.sleeper, connector: hub.connector)
        }
        XCTAssertEqual(error as? LightningBackendError,
                       .wrongNetwork(url: "http://127.0.0.1:\(port)", expected: "bitcoin testnet", actual: "bitcoin regtest"))
        XCTAssertEqual("\(error!)", "Lightning node at http://127.0.0.1:\(port) runs on bitcoin regtest, but this node is "
                       + "configured for bitcoin testnet; refusing to use it")
        await hub.shutDown()
    }

    func testClosedPortIsUnreachableNamingTheURL() async throws {
        let loop = try EventLoop()
        // A port that was free a moment ago and has nothing listening now.
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let port = listener.port
        await listener.close()
        let configuration = LNDRESTClient.Configuration(host: "127.0.0.1", port: port, macaroon: [1, 2, 3],
                                                        network: .regtest, requestTimeoutMilliseconds: 5_000)
        let error = await lndExpectError {
            try await LNDRESTClient.connect(configuration: configuration, sleeper: loop.sleeper) { host, port in
                try await TCPConnection.connect(host: host, port: port, loop: loop)
            }
        }
        // Refused, not merely unreachable: the request certainly never left (issue 15).
        guard case .connectionRefused(let url, let reason)? = error as? LightningBackendError else {
            await loop.shutdown()
            return XCTFail("expected connectionRefused, got \(String(describing: error))")
        }
        XCTAssertTrue((error as? LightningBackendError)?.isUnreachable == true)
        XCTAssertEqual(url, "http://127.0.0.1:\(port)")
        XCTAssertTrue(reason.contains("ECONNREFUSED"), reason)
        XCTAssertTrue("\(error!)".hasPrefix("Lightning node at http://127.0.0.1:\(port) is unreachable: "), "\(error!)")
        await loop.shutdown()
    }

    /// A proxy in front of the node's server lets every invoice subscription deliver its
    /// first line and then breaks the connection. The client still sees every state:
    /// from the lookups it makes after each break and the re-opened streams.
    func testSubscriptionSurvivesABrokenStreamByLookingUp() async throws {
        let hub = try await LNDTestHub.start([("alice", 10_000_000_000), ("bob", 0)])
        let handler = hub.servers["bob"]!.handler
        let subscriptions = LNDTestCounter()
        let lookups = LNDTestCounter()
        let proxy = HTTPServer(sleeper: hub.loop.sleeper) { request in
            if request.target.hasPrefix("/v2/invoices/lookup") { lookups.increment() }
            let response = await handler.handle(request)
            guard request.target.hasPrefix("/v2/invoices/subscribe/"), case .streaming(let original) = response else {
                return response
            }
            subscriptions.increment()
            let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            Task {
                for try await piece in original.body {
                    continuation.yield(piece)
                    break
                }
                continuation.finish(throwing: ByteStreamError.closed)
            }
            return .streaming(HTTPStreamingResponse(status: original.status, headers: original.headers, body: body))
        }
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: hub.loop)
        let acceptor = Task {
            await withDiscardingTaskGroup { group in
                while let connection = try? await listener.accept() {
                    group.addTask { await proxy.serve(connection: connection) }
                }
                group.cancelAll()
            }
        }

        let bob = try await LNDRESTClient.connect(
            configuration: hub.configuration("bob", retryMilliseconds: 20, port: listener.port),
            sleeper: hub.loop.sleeper, connector: hub.connector)
        let alice = try await hub.client("alice")
        let secret = preimage(0x61)
        let hash = SHA256.hash(secret)
        let request = try await bob.addHoldInvoice(paymentHash: hash, amountMsat: 100_000_000, memo: "",
                                                   expirySeconds: 600, cltvExpiry: 144)
        let updates = LNDIterator(bob.subscribeInvoice(paymentHash: hash))
        let open = try await lndNext(updates)
        XCTAssertEqual(open?.state, .open)

        let payment = LNDIterator(alice.payInvoice(paymentRequest: request, feeLimitSat: 100, cltvLimit: 0,
                                                   timeoutSeconds: 60))
        _ = try await lndNext(payment)
        let accepted = try await lndNext(updates)
        XCTAssertEqual(accepted?.state, .accepted)
        try await bob.settleInvoice(preimage: secret)
        let settled = try await lndNext(updates)
        XCTAssertEqual(settled?.state, .settled)
        let end = try await lndNext(updates)
        XCTAssertNil(end)
        XCTAssertGreaterThanOrEqual(subscriptions.count, 2)
        XCTAssertGreaterThanOrEqual(lookups.count, 1)

        acceptor.cancel()
        await listener.close()
        await acceptor.value
        await hub.shutDown(alice, bob)
    }
}
