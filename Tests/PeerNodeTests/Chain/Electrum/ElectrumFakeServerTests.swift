@testable import PeerNode
import Transport
import XCTest

/// `ElectrumClient.connect` over real loopback TCP against a local listener playing a
/// broken, hostile or outdated server: each is refused with its typed error, and the
/// next connection on the same event loop works.
final class ElectrumFakeServerTests: XCTestCase {
    func testGarbageFromTheServerDropsTheConnectionAndTheNextOneWorks() async throws {
        try await withFakeServer({ peer, stream in
            _ = try await peer.readMessage()
            try await stream.write(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        }) { connect in
            do throws(ElectrumError) {
                let accepted = try await connect()
                await accepted.connection.close()
                XCTFail("a server answering garbage was accepted")
            } catch {
                guard case .malformed = error else { return XCTFail("\(error)") }
                XCTAssertTrue(error.description.contains("connection was dropped"), error.description)
            }
        }
    }

    func testAnOversizedLineDropsTheConnection() async throws {
        try await withFakeServer({ peer, stream in
            _ = try await peer.readMessage()
            // No newline ever: the client must stop at its limit, not buffer forever.
            try await stream.write([UInt8](repeating: 0x7B, count: 70_000))
        }) { connect in
            do throws(ElectrumError) {
                let accepted = try await connect()
                await accepted.connection.close()
                XCTFail("an endless line was accepted")
            } catch {
                XCTAssertEqual(error, .lineTooLong(limit: 65_536))
            }
        }
    }

    func testAServerOlderThan14IsRefused() async throws {
        try await withFakeServer({ peer, _ in
            let request = try await peer.readMessage()
            XCTAssertEqual(request["method"]?.stringValue, "server.version")
            XCTAssertEqual(request["params"]?.arrayValue?.last, .array([.string("1.4"), .string("1.6")]), "the range offered")
            try await peer.send(.object(["jsonrpc": .string("2.0"), "id": request["id"]!,
                                         "result": .array([.string("OldServer 0.9"), .string("1.2")])]))
        }) { connect in
            do throws(ElectrumError) {
                let accepted = try await connect()
                await accepted.connection.close()
                XCTFail("a 1.2 server was accepted")
            } catch {
                XCTAssertEqual(error, .unsupportedProtocolVersion(server: "OldServer 0.9 chose 1.2", minimum: "1.4"))
                XCTAssertTrue(error.description.contains("upgrade it"), error.description)
            }
        }
    }

    func testAServerRefusingTheRangeIsRefused() async throws {
        try await withFakeServer({ peer, _ in
            let request = try await peer.readMessage()
            try await peer.send(.object(["jsonrpc": .string("2.0"), "id": request["id"]!,
                                         "error": .object(["code": .integer(1), "message": .string("unsupported protocol version: 1.4")])]))
        }) { connect in
            do throws(ElectrumError) {
                let accepted = try await connect()
                await accepted.connection.close()
                XCTFail("a refusing server was accepted")
            } catch {
                XCTAssertEqual(error, .unsupportedProtocolVersion(server: "it answered: unsupported protocol version: 1.4",
                                                                  minimum: "1.4"))
            }
        }
    }

    func testNobodyListeningIsUnreachable() async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(loop: loop)
        let port = listener.port
        await listener.close()
        do throws(ElectrumError) {
            _ = try await ElectrumClient.connect(host: "127.0.0.1", port: port, network: .regtest, loop: loop)
            XCTFail("connected to nothing")
        } catch {
            guard case .unreachable(server: "127.0.0.1:\(port)", _) = error else { return XCTFail("\(error)") }
        }
        await loop.shutdown()
    }

    /// Runs `misbehave` on the first connection accepted and a well-behaved 1.6 regtest
    /// server on the second, which must then negotiate: a dropped connection breaks
    /// nothing else.
    private func withFakeServer(_ misbehave: @escaping @Sendable (FakeElectrumPeer, TCPConnection) async throws -> Void,
                                _ body: (@Sendable () async throws(ElectrumError) -> ElectrumClient) async throws -> Void) async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(loop: loop)
        let port = listener.port
        let serving = Task {
            guard let first = try await listener.accept() else { return }
            try? await misbehave(FakeElectrumPeer(stream: first), first)
            // Wait for the client to hang up, then close our end.
            while (try? await first.read()) != nil {}
            await first.close()
            guard let second = try await listener.accept() else { return }
            let peer = FakeElectrumPeer(stream: second)
            while let request = try? await peer.readMessage() {
                let result: JSONValue = switch request["method"]?.stringValue {
                case "server.version": .array([.string("FakeX 1.0"), .string("1.6")])
                case "server.features": .object(["genesis_hash": .string(
                    "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206")])
                default: .null
                }
                try await peer.send(.object(["jsonrpc": .string("2.0"), "id": request["id"]!, "result": result]))
            }
            await second.close()
        }
        let connect: @Sendable () async throws(ElectrumError) -> ElectrumClient = {
            try await ElectrumClient.connect(host: "127.0.0.1", port: port, network: .regtest, loop: loop, maxLineBytes: 65_536)
        }
        try await body(connect)
        let good = try await connect()
        XCTAssertEqual(good.serverSoftware, "FakeX 1.0")
        XCTAssertEqual(good.protocolVersion, ElectrumProtocolVersion(major: 1, minor: 6))
        await good.connection.close()
        try await serving.value
        await listener.close()
        await loop.shutdown()
    }
}
