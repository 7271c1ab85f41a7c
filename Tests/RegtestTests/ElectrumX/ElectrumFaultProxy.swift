import Foundation
import Synchronization
import Transport

/// A loopback TCP relay between the node and ElectrumX that can misbehave on command:
/// `inject` writes bytes to every client connection (an oversized line, garbage) as if the
/// server had sent them. Each accepted client gets its own upstream connection.
final class ElectrumFaultProxy: Sendable {
    let port: Int
    private let listener: TCPListener
    private let clients = Mutex<[TCPConnection]>([])
    private let serving: Mutex<Task<Void, Never>?> = Mutex(nil)
    /// Client connections accepted so far.
    var accepted: Int { acceptedCount.withLock { $0 } }
    private let acceptedCount = Mutex(0)

    init(upstreamPort: Int, loop: EventLoop) async throws {
        listener = try await TCPListener.bind(loop: loop)
        port = listener.port
        let task = Task { [self] in await self.serve(upstreamPort: upstreamPort, loop: loop) }
        serving.withLock { $0 = task }
    }

    private func serve(upstreamPort: Int, loop: EventLoop) async {
        while let client = try? await listener.accept() {
            acceptedCount.withLock { $0 += 1 }
            guard let upstream = try? await TCPConnection.connect(host: "127.0.0.1", port: upstreamPort, loop: loop) else {
                await client.close()
                continue
            }
            clients.withLock { $0.append(client) }
            Task { await Self.pump(from: client, to: upstream) }
            Task { await Self.pump(from: upstream, to: client) }
        }
    }

    private static func pump(from source: TCPConnection, to sink: TCPConnection) async {
        while let bytes = try? await source.read() {
            do { try await sink.write(bytes) } catch { break }
        }
        await source.close()
        await sink.close()
    }

    /// Sends `bytes` to every client as if from the server.
    func inject(_ bytes: [UInt8]) async {
        for client in clients.withLock({ $0 }) { try? await client.write(bytes) }
    }

    func close() async {
        serving.withLock { $0?.cancel() }
        await listener.close()
        for client in clients.withLock({ $0 }) { await client.close() }
    }
}
