@testable import PeerNode
import TestSupport
import Transport
import XCTest

/// The connection against a scripted server over an in-memory stream: pipelining with
/// replies out of order, batches, notifications, and every protocol violation dropping
/// the connection with its typed error.
final class ElectrumConnectionTests: XCTestCase {
    func testPipelinedCallsAreMatchedByIDWhateverTheReplyOrder() async throws {
        let (client, server) = MemoryByteStream.pair()
        let connection = ElectrumConnection(stream: client)
        let script = FakeElectrumPeer(stream: server)
        async let first = connection.call("first", [.integer(1)])
        async let second = connection.call("second", [.integer(2)])
        async let third = connection.call("third", [.integer(3)])
        var requests: [JSONValue] = []
        while requests.count < 3 { requests.append(try await script.readMessage()) }
        // Answered in reverse, the middle one with an error.
        for request in requests.reversed() {
            let id = try XCTUnwrap(request["id"])
            let method = try XCTUnwrap(request["method"]?.stringValue)
            if method == "second" {
                try await script.send(.object(["jsonrpc": .string("2.0"), "id": id,
                                               "error": .object(["code": .integer(1), "message": .string("no")])]))
            } else {
                try await script.send(.object(["jsonrpc": .string("2.0"), "id": id, "result": .string(method)]))
            }
        }
        let firstResult = try await first
        let thirdResult = try await third
        XCTAssertEqual(firstResult, .string("first"))
        XCTAssertEqual(thirdResult, .string("third"))
        do {
            _ = try await second
            XCTFail("the error reply must throw")
        } catch {
            XCTAssertEqual(error as? ElectrumError, .server(method: "second", code: 1, message: "no"))
        }
        async let again = connection.call("again")
        let request = try await script.readMessage()
        try await script.send(.object(["jsonrpc": .string("2.0"), "id": request["id"] ?? .null, "result": .bool(true)]))
        let after = try await again
        XCTAssertEqual(after, .bool(true), "a server error leaves the connection up")
        await connection.close()
    }

    func testABatchIsOneLineAndEachReplyKeepsItsPlace() async throws {
        let (client, server) = MemoryByteStream.pair()
        let connection = ElectrumConnection(stream: client)
        let script = FakeElectrumPeer(stream: server)
        async let results = connection.batch([("a", []), ("b", []), ("c", [])])
        let message = try await script.readMessage()
        let batch = try XCTUnwrap(message.arrayValue, "one JSON array")
        XCTAssertEqual(batch.compactMap { $0["method"]?.stringValue }, ["a", "b", "c"])
        let replies: [JSONValue] = [
            .object(["jsonrpc": .string("2.0"), "id": batch[2]["id"]!, "result": .string("C")]),
            .object(["jsonrpc": .string("2.0"), "id": batch[0]["id"]!, "result": .string("A")]),
            .object(["jsonrpc": .string("2.0"), "id": batch[1]["id"]!,
                     "error": .object(["code": .integer(-32601), "message": .string("unknown method")])]),
        ]
        try await script.send(.array(replies))
        let outcome = try await results
        XCTAssertEqual(try outcome[0].get(), .string("A"))
        XCTAssertEqual(outcome[1].failure, .server(method: "b", code: -32601, message: "unknown method"))
        XCTAssertEqual(try outcome[2].get(), .string("C"))
        do {
            _ = try await connection.batch([])
            XCTFail("an empty batch is refused")
        } catch {
            XCTAssertEqual(error, .invalidRequest(reason: "an empty batch (JSON-RPC 2.0 forbids it)"))
        }
        await connection.close()
    }

    func testNotificationsReachEverySubscriberAndFinishWhenTheConnectionEnds() async throws {
        let (client, server) = MemoryByteStream.pair()
        let connection = ElectrumConnection(stream: client)
        let script = FakeElectrumPeer(stream: server)
        let one = await connection.notifications()
        let two = await connection.notifications()
        let header = String(repeating: "00", count: 80)
        try await script.send(.object(["jsonrpc": .string("2.0"), "method": .string("blockchain.headers.subscribe"),
                                       "params": .array([.object(["height": .integer(7), "hex": .string(header)])])]))
        var iteratorOne = one.makeAsyncIterator()
        var iteratorTwo = two.makeAsyncIterator()
        let first = await iteratorOne.next()
        let second = await iteratorTwo.next()
        XCTAssertEqual(first?.headerTip?.height, 7)
        XCTAssertEqual(first?.headerTip?.header, [UInt8](repeating: 0, count: 80))
        XCTAssertEqual(first, second)
        await server.close()
        let end = await iteratorOne.next()
        XCTAssertNil(end, "the stream finishes when the server goes")
        let reason = await connection.closedReason
        XCTAssertEqual(reason, .closed(reason: "the server closed the connection"))
    }

    func testGarbageDropsTheConnectionWithATypedErrorForPendingAndLaterCalls() async throws {
        try await assertDropped(by: Array("this is not json\n".utf8)) {
            guard case .malformed = $0 else { return XCTFail("\($0)") }
        }
    }

    func testAnOversizedLineDropsTheConnection() async throws {
        try await assertDropped(by: [UInt8](repeating: 0x61, count: 5_000), maxLineBytes: 4_096) {
            XCTAssertEqual($0, .lineTooLong(limit: 4_096))
        }
    }

    func testAReplyToAnIDNeverSentDropsTheConnection() async throws {
        try await assertDropped(by: Array("{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":1}\n".utf8)) {
            XCTAssertEqual($0, .malformed(reason: "a reply to id 999, which this client never sent or already had"))
        }
    }

    func testAServerThatStopsAnsweringTimesOutAndDropsTheConnection() async throws {
        let (client, server) = MemoryByteStream.pair()
        let connection = ElectrumConnection(stream: client, sleeper: TaskSleeper(), timeoutMilliseconds: 200)
        let script = FakeElectrumPeer(stream: server)
        async let pending = connection.call("blockchain.headers.subscribe")
        _ = try await script.readMessage()
        do {
            _ = try await pending
            XCTFail("a call nobody answers returned")
        } catch {
            XCTAssertEqual(error as? ElectrumError, .timedOut(method: "blockchain.headers.subscribe", milliseconds: 200))
        }
        let reason = await connection.closedReason
        XCTAssertEqual(reason, .timedOut(method: "blockchain.headers.subscribe", milliseconds: 200))
        let read = try await server.read()
        XCTAssertNil(read, "the client closed its end")
    }

    /// A call is pending when the server sends `bytes`: the call, a later call and the
    /// notification stream all end with the same typed error, and the stream is closed.
    private func assertDropped(by bytes: [UInt8], maxLineBytes: Int = ElectrumConnection.defaultMaxLineBytes,
                               _ check: (ElectrumError) -> Void) async throws {
        let (client, server) = MemoryByteStream.pair()
        let connection = ElectrumConnection(stream: client, maxLineBytes: maxLineBytes)
        let script = FakeElectrumPeer(stream: server)
        let notifications = await connection.notifications()
        async let pending = connection.call("server.ping")
        _ = try await script.readMessage()
        try await server.write(bytes)
        var thrown: ElectrumError?
        do { _ = try await pending } catch { thrown = error as? ElectrumError }
        let error = try XCTUnwrap(thrown, "the pending call fails")
        check(error)
        do {
            _ = try await connection.call("server.ping")
            XCTFail("a later call fails too")
        } catch {
            XCTAssertEqual(error, thrown)
        }
        for await _ in notifications { XCTFail("no notification") }
        let read = try await server.read()
        XCTAssertNil(read, "the client closed its end")
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
