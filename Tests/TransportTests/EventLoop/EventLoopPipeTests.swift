import Glibc
import XCTest
@testable import Transport

/// Unix-domain sockets (`PipeListener`, `PipeConnection`): echo, the socket file's mode,
/// refusal of a taken path, and removal of the file on close and on loop shutdown.
final class EventLoopPipeTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/peernode-pipe-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        directory = String(cString: try XCTUnwrap(made))
    }

    override func tearDown() {
        rmdir(directory)
    }

    private func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private func mode(_ path: String) -> UInt32? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode)
    }

    private func echo(_ listener: PipeListener) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                while let connection = try? await listener.accept() {
                    group.addTask {
                        while let bytes = try? await connection.read() {
                            guard (try? await connection.write(bytes)) != nil else { break }
                        }
                        await connection.close()
                    }
                }
            }
        }
    }

    func testPipeEchoesBytesInOrder() async throws {
        let loop = try EventLoop()
        let path = directory + "/echo.sock"
        let listener = try await PipeListener.bind(path: path, loop: loop)
        let server = echo(listener)
        let client = try await PipeConnection.connect(path: path, loop: loop)
        XCTAssertEqual(client.path, path)
        let payload = testPattern(count: 3 << 20)
        async let echoed = readExactly(payload.count, from: client)
        var offset = 0
        while offset < payload.count {
            let end = min(offset + 100_003, payload.count)
            try await client.write(Array(payload[offset..<end]))
            offset = end
        }
        let received = try await echoed
        XCTAssertTrue(received == payload, "echoed bytes differ from those sent")
        await client.close()
        await listener.close()
        await server.value
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testPipeSocketIsOwnerOnlyAndRemovedOnClose() async throws {
        let loop = try EventLoop()
        let path = directory + "/mode.sock"
        let listener = try await PipeListener.bind(path: path, loop: loop)
        let found = try XCTUnwrap(mode(path))
        XCTAssertEqual(found & UInt32(S_IFMT), UInt32(S_IFSOCK), "a socket file")
        XCTAssertEqual(found & 0o777, 0o600, "only the owner may connect")
        await listener.close()
        XCTAssertFalse(exists(path), "closing the listener removes its socket file")
        await loop.shutdown()
    }

    func testPipeSocketRemovedWhenTheLoopShutsDown() async throws {
        let loop = try EventLoop()
        let path = directory + "/shutdown.sock"
        _ = try await PipeListener.bind(path: path, loop: loop)
        XCTAssertTrue(exists(path))
        await loop.shutdown()
        XCTAssertFalse(exists(path))
        XCTAssertEqual(loop.loopCloseResult, 0)
    }

    func testPipeBindRefusesATakenPathAndLeavesItAlone() async throws {
        let loop = try EventLoop()
        let path = directory + "/taken.sock"
        let first = try await PipeListener.bind(path: path, loop: loop)
        do {
            _ = try await PipeListener.bind(path: path, loop: loop)
            XCTFail("a second listener bound a path in use")
        } catch let error as LibUVError {
            XCTAssertEqual(error.name, "EADDRINUSE")
        }
        // The refused bind must not have removed the first listener's file.
        XCTAssertTrue(exists(path))
        let client = try await PipeConnection.connect(path: path, loop: loop)
        await client.close()
        await first.close()
        await loop.shutdown()
    }

    func testPipeConnectFailuresAreTyped() async throws {
        let loop = try EventLoop()
        do {
            _ = try await PipeConnection.connect(path: directory + "/nobody.sock", loop: loop)
            XCTFail("connected to a missing socket")
        } catch let error as LibUVError {
            XCTAssertEqual(error.name, "ENOENT")
            XCTAssertEqual(error.call, "uv_pipe_connect")
        }
        let long = directory + "/" + String(repeating: "x", count: 120)
        do {
            _ = try await PipeListener.bind(path: long, loop: loop)
            XCTFail("bound a path longer than sun_path")
        } catch let error as LibUVError {
            XCTAssertEqual(error.name, "ENAMETOOLONG")
        }
        await loop.shutdown()
    }

    func testPipePeerCloseEndsReadsWithNil() async throws {
        let loop = try EventLoop()
        let path = directory + "/eof.sock"
        let listener = try await PipeListener.bind(path: path, loop: loop)
        let client = try await PipeConnection.connect(path: path, loop: loop)
        let accepted = try await XCTUnwrapAsync(await listener.accept())
        try await client.write(Array("hi".utf8))
        await client.close()
        var received: [UInt8] = []
        while let chunk = try await accepted.read() { received += chunk }
        XCTAssertEqual(received, Array("hi".utf8))
        do {
            try await client.write([1])
            XCTFail("wrote after close")
        } catch {
            XCTAssertEqual(error as? ByteStreamError, .closed)
        }
        await accepted.close()
        await listener.close()
        await loop.shutdown()
    }
}

private func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}
