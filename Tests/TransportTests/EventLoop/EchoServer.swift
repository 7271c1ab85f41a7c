@testable import Transport

/// A loopback echo server for the TCP tests: each accepted connection echoes what it
/// reads until EOF, then closes. `stop()` closes the listener and waits for handlers.
final class EchoServer: Sendable {
    let listener: TCPListener
    private let task: Task<Void, Never>

    init(listener: TCPListener) {
        self.listener = listener
        task = Task {
            await withTaskGroup(of: Void.self) { group in
                while let connection = try? await listener.accept() {
                    group.addTask { await EchoServer.echo(connection) }
                }
            }
        }
    }

    static func start(host: String = "127.0.0.1", maxConnections: Int = 256, loop: EventLoop) async throws -> EchoServer {
        EchoServer(listener: try await TCPListener.bind(host: host, port: 0, maxConnections: maxConnections, loop: loop))
    }

    var port: Int { listener.port }

    static func echo(_ connection: TCPConnection) async {
        do {
            while let bytes = try await connection.read() {
                try await connection.write(bytes)
            }
        } catch {
            // A reset peer ends the echo like EOF does.
        }
        await connection.close()
    }

    func stop() async {
        await listener.close()
        await task.value
    }
}

/// Deterministic bytes that do not repeat with any short period, so a dropped, doubled
/// or reordered chunk shows up as a mismatch.
func testPattern(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[i] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}

/// Reads until `count` bytes arrived (or EOF), returning them.
func readExactly(_ count: Int, from stream: any ByteStream) async throws -> [UInt8] {
    var received: [UInt8] = []
    received.reserveCapacity(count)
    while received.count < count, let chunk = try await stream.read() {
        received.append(contentsOf: chunk)
    }
    return received
}
