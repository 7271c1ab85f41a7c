import XCTest
@testable import Transport

final class NetPeerScaleTests: XCTestCase {
    private typealias F = ChannelFixtures
    private typealias P = PeerFixtures
    private typealias N = NetFixtures

    /// 1,000 TCP connections to one listener, 50 at a time, each a full handshake and one
    /// request answered; then the server holds none of them.
    func testAThousandConnectionsToOneListenerAllComplete() async throws {
        let loop = try makeLoop()
        let capture = LogCapture()
        let bob = try await N.node(F.bob, loop: loop, limits: N.limits(handshake: 10_000, inbound: 1024, crowd: 1024), log: capture.log)
        let port = bob.port
        // Fifty dialling identities, reused round-robin, so the server sees many peers.
        let dialers = (0..<50).map { N.dialer(F.identity(UInt8(100 + $0)), loop: loop, limits: N.limits(handshake: 10_000)) }
        let total = 1000
        let concurrency = 50
        let completed = try await withThrowingTaskGroup(of: Bool.self) { group -> Int in
            var next = 0
            var done = 0
            func launch(_ index: Int) {
                let dialer = dialers[index % dialers.count]
                group.addTask {
                    let peer = try await dialer.dial(F.bob.pubky, host: "127.0.0.1", port: port)
                    let reply = try await peer.request(P.request("r\(index)"), id: "r\(index)")
                    await peer.close()
                    return P.requestID(of: reply) == "r\(index)"
                }
            }
            while next < min(concurrency, total) { launch(next); next += 1 }
            while let ok = try await group.next() {
                if ok { done += 1 }
                if next < total { launch(next); next += 1 }
            }
            return done
        }
        XCTAssertEqual(completed, total)
        let failures = capture.all.filter {
            if case .handshakeFailed = $0 { return true }
            if case .inboundRefused = $0 { return true }
            return false
        }
        XCTAssertEqual(failures, [])
        let refusedAtTCP = await bob.refusedAtTCP
        XCTAssertEqual(refusedAtTCP, 0)
        await bob.close()
        let remaining = await bob.server.connectionCount
        XCTAssertEqual(remaining, 0)
        await finish(loop)
    }
}
