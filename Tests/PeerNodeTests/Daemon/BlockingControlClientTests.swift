import Foundation
@testable import PeerNode
import Synchronization
import Transport
import XCTest

/// The `peernode` commands' control client: a blocking unix socket, no event loop. The
/// other side here is a listener that answers as the daemon's control server does.
final class BlockingControlClientTests: XCTestCase {
    private func socketPath(_ name: String) -> String {
        NSTemporaryDirectory() + "pn-bcc-\(getpid())-\(name).sock"
    }

    /// Serves one connection: reads the request line, then writes `replies` (each a whole
    /// line, in pieces when `split`), then closes.
    private func serveOnce(at path: String, loop: EventLoop, replies: [[UInt8]], split: Bool = false) async throws -> Task<[UInt8], any Error> {
        let listener = try await PipeListener.bind(path: path, loop: loop)
        return Task {
            defer { Task { await listener.close() } }
            guard let connection = try await listener.accept() else { return [] }
            var request: [UInt8] = []
            while !request.contains(0x0A), let chunk = try await connection.read() { request += chunk }
            for reply in replies {
                if split, reply.count > 1 {
                    try await connection.write(Array(reply[..<(reply.count / 2)]))
                    try await loop.sleep(milliseconds: 2)
                    try await connection.write(Array(reply[(reply.count / 2)...]))
                } else {
                    try await connection.write(reply)
                }
            }
            await connection.close()
            return request
        }
    }

    func testProgressLinesThenTheResultAsTheDaemonSendsThem() async throws {
        let loop = try EventLoop()
        let path = socketPath("ok")
        defer { unlink(path) }
        let replies = [ControlMessage.Reply.progress(.object(["step": .string("quoting")])).line,
                       ControlMessage.Reply.progress(.object(["step": .string("paying")])).line,
                       ControlMessage.Reply.result(.object(["paid": .integer(21_000)])).line]
        let server = try await serveOnce(at: path, loop: loop, replies: replies, split: true)
        let seen = Steps()
        let result = try await send(to: path) { progress in
            seen.append(progress["step"]?.stringValue ?? "?")
        }
        XCTAssertEqual(try result.get(), .object(["paid": .integer(21_000)]))
        XCTAssertEqual(seen.all, ["quoting", "paying"])
        let request = try await server.value
        XCTAssertEqual(request, ControlMessage.Request(command: "status").line)
        await loop.shutdown()
    }

    func testTheDaemonsErrorIsTheResultNotAFailure() async throws {
        let loop = try EventLoop()
        let path = socketPath("error")
        defer { unlink(path) }
        let refused = ControlError(code: "invalid_request", message: "no such swap")
        let server = try await serveOnce(at: path, loop: loop, replies: [ControlMessage.Reply.error(refused).line])
        let result = try await send(to: path) { _ in }
        XCTAssertEqual(result, .failure(refused))
        _ = try await server.value
        await loop.shutdown()
    }

    func testAConnectionClosedBeforeTheReplyIsNoAnswer() async throws {
        let loop = try EventLoop()
        let path = socketPath("closed")
        defer { unlink(path) }
        let server = try await serveOnce(at: path, loop: loop, replies: [ControlMessage.Reply.progress(.null).line])
        do {
            _ = try await send(to: path) { _ in }
            XCTFail("a connection closed before the reply was taken as an answer")
        } catch {
            XCTAssertEqual(error, .noAnswer(socket: path, reason: "the connection closed before the reply"))
        }
        _ = try await server.value
        await loop.shutdown()
    }

    func testNoDaemonIsToldAsTheLoopsClientTellsIt() async throws {
        let missing = socketPath("missing")
        do {
            _ = try await send(to: missing) { _ in }
            XCTFail("connected to nothing")
        } catch {
            XCTAssertEqual(error, .daemonNotRunning(socket: missing, reason: "no socket file"))
        }
        // A socket file nobody listens on: what a crashed daemon leaves.
        let stale = socketPath("stale")
        defer { unlink(stale) }
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(stale.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        close(listening)
        if let reason = await notRunningReason(stale, "connected to a stale socket") {
            XCTAssertTrue(reason.contains("ECONNREFUSED"), reason)
        }
        let long = "/tmp/" + String(repeating: "x", count: 120)
        if let reason = await notRunningReason(long, "a path longer than a unix socket's was used") {
            XCTAssertTrue(reason.contains("longer than"), reason)
        }
    }

    /// Why a request to `socket` found no daemon; nil, with `answered` as the test's
    /// failure, when it got through or failed otherwise.
    private func notRunningReason(_ socket: String, _ answered: String) async -> String? {
        do {
            _ = try await send(to: socket) { _ in }
            XCTFail(answered)
        } catch {
            guard case .daemonNotRunning(_, let reason) = error else { XCTFail("\(error)"); return nil }
            return reason
        }
        return nil
    }

    /// Sends a `status` request as a command does. The client blocks its thread (a command's
    /// main thread); here that is a thread of its own, so the pool stays free for the
    /// listener's task.
    private func send(to path: String, progress: @escaping @Sendable (JSONValue) -> Void) async throws(ControlClient.Failure)
        -> Result<JSONValue, ControlError> {
        let outcome = await withCheckedContinuation { (done: CheckedContinuation<Result<Result<JSONValue, ControlError>, ControlClient.Failure>, Never>) in
            Thread.detachNewThread {
                done.resume(returning: Result { () throws(ControlClient.Failure) in
                    try BlockingControlClient(socketPath: path).send(ControlMessage.Request(command: "status"), progress: progress)
                })
            }
        }
        return try outcome.get()
    }

    private final class Steps: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ step: String) { list.withLock { $0.append(step) } }
        var all: [String] { list.withLock { $0 } }
    }
}
