import XCTest
@testable import Transport

final class ChannelPeerConnectionTests: XCTestCase {
    private typealias F = ChannelFixtures
    private typealias P = PeerFixtures

    func testConcurrentRequestsGetTheirOwnReplies() async throws {
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 20, jitter: true)))
        let client = try await P.dial(server)
        XCTAssertEqual(client.remotePubky, F.bob.pubky)
        try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for index in 0..<30 {
                group.addTask {
                    let id = "req-\(index)"
                    let reply = try await client.request(P.request(id), id: id)
                    return (id, P.requestID(of: reply))
                }
            }
            var seen = 0
            for try await (sent, echoed) in group {
                XCTAssertEqual(sent, echoed)
                seen += 1
            }
            XCTAssertEqual(seen, 30)
        }
        await server.shutdown()
    }

    func testBothSidesRequestAndPush() async throws {
        let serverPushes = PushCapture()
        let clientPushes = PushCapture()
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(tag: "bob"), onPush: serverPushes.handler))
        let client = try await P.dial(server, handlers: PeerHandlers(onRequest: P.echo(tag: "alice"),
                                                                    onPush: clientPushes.handler))
        let reply = try await client.request(P.request("a1"), id: "a1")
        XCTAssertTrue(F.text(reply)?.contains(#""from":"bob""#) == true)

        let atServer = await server.connections(from: F.alice.pubky)
        let inbound = try XCTUnwrap(atServer.first)
        XCTAssertEqual(inbound.direction, .inbound)
        let back = try await inbound.request(P.request("b1"), id: "b1")
        XCTAssertTrue(F.text(back)?.contains(#""from":"alice""#) == true)

        for index in 0..<10 {
            try await inbound.push(F.json(#"{"type":"SwapStatusUpdate","seq":\#(index)}"#))
        }
        try await client.push(F.json(#"{"type":"PreimagePush"}"#))
        let received = await clientPushes.waitForCount(10)
        XCTAssertEqual(received, (0..<10).map { #"{"type":"SwapStatusUpdate","seq":\#($0)}"# })
        let atBob = await serverPushes.waitForCount(1)
        XCTAssertEqual(atBob, [#"{"type":"PreimagePush"}"#])
        await server.shutdown()
    }

    func testUnknownRequestIDIsAPushForASideThatServesNoRequests() async throws {
        let pushes = PushCapture()
        let server = P.server()
        let client = try await P.dial(server, handlers: PeerHandlers(onPush: pushes.handler))
        _ = try await client.request(P.request("warm-up"), id: "warm-up")
        let connections = await server.connections(from: F.alice.pubky)
        let inbound = try XCTUnwrap(connections.first)
        try await inbound.push(P.request("status-7", type: "SwapStatusUpdate"))
        let received = await pushes.waitForCount(1)
        XCTAssertEqual(received, [F.text(P.request("status-7", type: "SwapStatusUpdate"))!])
        await server.shutdown()
    }

    func testRequestTimesOutAndItsLateReplyIsDropped() async throws {
        let capture = LogCapture()
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 150)))
        let client = try await P.dial(server, log: capture.log)
        do {
            _ = try await client.request(P.request("slow"), id: "slow", timeoutMilliseconds: 50)
            XCTFail("the reply comes after the timeout")
        } catch {
            XCTAssertEqual(error, .requestTimedOut(milliseconds: 50))
        }
        let dropped = await capture.waitFor { $0 == .lateReplyDropped(peer: F.bob.pubky) }
        XCTAssertTrue(dropped)
        let reply = try await client.request(P.request("next"), id: "next")
        XCTAssertEqual(P.requestID(of: reply), "next")
        await server.shutdown()
    }

    func testLocalInFlightCapRefusesWithoutClosing() async throws {
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 100)))
        var limits = PeerLimits(channel: F.fastLimits())
        limits.maxInFlightRequests = 2
        let client = try await P.dial(server, limits: limits)
        async let first = client.request(P.request("1"), id: "1")
        async let second = client.request(P.request("2"), id: "2")
        try await waitForInFlight(client, 2)
        do {
            _ = try await client.request(P.request("3"), id: "3")
            XCTFail("a third request over a cap of 2 must be refused")
        } catch {
            XCTAssertEqual(error, .tooManyRequestsInFlight(limit: 2))
        }
        let replies = try await [first, second].map { P.requestID(of: $0) }
        XCTAssertEqual(replies, ["1", "2"])
        let reason = await client.closedReason
        XCTAssertNil(reason)
        await server.shutdown()
    }

    func testLocalMistakesAreRefusedWithoutClosing() async throws {
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 50)))
        let client = try await P.dial(server)
        do {
            _ = try await client.request(P.request("a"), id: "b")
            XCTFail("mismatched id")
        } catch {
            XCTAssertEqual(error, .requestIDMismatch)
        }
        do {
            _ = try await client.request(F.json("not json"), id: "x")
            XCTFail("not an envelope")
        } catch {
            XCTAssertEqual(error, .invalidJSON(.unexpectedByte(offset: 0)))
        }
        async let first = client.request(P.request("dup"), id: "dup")
        try await waitForInFlight(client, 1)
        do {
            _ = try await client.request(P.request("dup"), id: "dup")
            XCTFail("duplicate id")
        } catch {
            XCTAssertEqual(error, .duplicateRequestID)
        }
        let reply = try await first
        XCTAssertEqual(P.requestID(of: reply), "dup")
        await server.shutdown()
    }

    func testWaitingRequestsFailWhenTheConnectionCloses() async throws {
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 1000)))
        let client = try await P.dial(server)
        async let pending = client.request(P.request("never"), id: "never")
        try await waitForInFlight(client, 1)
        await server.shutdown()
        do {
            _ = try await pending
            XCTFail("the connection closed under the request")
        } catch {
            XCTAssertEqual(error as? ChannelError, .closed)
        }
        let reason = await client.waitUntilClosed()
        XCTAssertEqual(reason, .closedByPeer)
    }

    func testCancellingTheCallerEndsTheWait() async throws {
        let server = P.server(handlers: PeerHandlers(onRequest: P.echo(delayMilliseconds: 1000)))
        let client = try await P.dial(server)
        let task = Task { try await client.request(P.request("c"), id: "c") }
        try await waitForInFlight(client, 1)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("cancelled")
        } catch {
            XCTAssertEqual(error as? ChannelError, .cancelled)
        }
        await server.shutdown()
    }

    private func waitForInFlight(_ connection: PeerConnection, _ count: Int) async throws {
        for _ in 0..<1000 {
            if await connection.requestsInFlight >= count { return }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        XCTFail("requests never went in flight")
    }

    func testRoutingRule() {
        let pending: Set<String> = ["p"]
        let abandoned: Set<String> = ["late"]
        func route(_ id: String?, serves: Bool) -> PeerRoute {
            PeerRoute.of(MessageEnvelope(type: "t", requestID: id), isPending: pending.contains,
                         wasAbandoned: abandoned.contains, servesRequests: serves)
        }
        XCTAssertEqual(route("p", serves: true), .reply(requestID: "p"))
        XCTAssertEqual(route("late", serves: true), .lateReply)
        XCTAssertEqual(route("new", serves: true), .request)
        XCTAssertEqual(route("new", serves: false), .push)
        XCTAssertEqual(route(nil, serves: true), .push)
    }
}
