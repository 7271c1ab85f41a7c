import Offers
@testable import PeerNode
import Synchronization
import TestSupport
import Transport
import XCTest

/// The client's one channel to a provider: payments that start together must share it,
/// since the provider lets one pubky hold only 4 connections (docs/PEERS.md).
final class ClientProviderLinkTests: XCTestCase {
    func testCallersThatArriveWhileItDialsShareTheOneConnection() async throws {
        let provider = NodeIdentity(seed: .generate())
        let client = NodeIdentity(seed: .generate())
        let server = PeerServer(identity: provider, sleeper: TaskSleeper(), handlers: PeerHandlers())
        let dials = Mutex(0)
        let connector: ClientProviderConnector = { contact, handlers in
            dials.withLock { $0 += 1 }
            // A dial takes a while: long enough for every caller to arrive during it.
            try await Task.sleep(for: .milliseconds(100))
            let (ours, theirs) = MemoryByteStream.pair()
            await server.accept(theirs)
            return try await PeerConnection.dial(over: ours, identity: client, expecting: contact.pubky,
                                                 sleeper: TaskSleeper(), handlers: handlers)
        }
        let link = ClientProviderLink(contact: Offers.Contact(pubky: provider.pubky, host: "127.0.0.1", port: 1, name: "prov"),
                                      connector: connector, sleeper: TaskSleeper(), initialBackoffMilliseconds: 10,
                                      maximumBackoffMilliseconds: 100, onPush: { _ in }, onReconnect: {})
        let opened = try await withThrowingTaskGroup(of: PeerConnection.self) { group in
            for _ in 0..<5 { group.addTask { try await link.open() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(dials.withLock { $0 }, 1, "five callers, one dial")
        XCTAssertTrue(opened.allSatisfy { $0 === opened[0] })
        // Once open, it is reused; once closed, the next caller dials again.
        let again = try await link.open()
        XCTAssertTrue(again === opened[0])
        await again.close()
        _ = await again.waitUntilClosed()
        _ = try await link.open()
        XCTAssertEqual(dials.withLock { $0 }, 2)
        await link.stop()
    }

    /// A payment quotes over the link before its swap exists, so the end of the provider's
    /// last swap stops the link while that quote may be in flight: the answer must still
    /// arrive (it once came back "the connection is closed", and the pay failed), and the
    /// connection closes once nothing uses it.
    func testStoppingTheLinkWhileARequestIsInFlightLetsItsAnswerArriveThenCloses() async throws {
        let provider = NodeIdentity(seed: .generate())
        let client = NodeIdentity(seed: .generate())
        let asked = Mutex(false)
        let server = PeerServer(identity: provider, sleeper: TaskSleeper(), handlers: PeerHandlers(onRequest: { _, _ in
            asked.withLock { $0 = true }
            try? await Task.sleep(for: .milliseconds(200))
            return Reject(requestID: "q1", code: .invalidRequest, reason: "the provider's answer").encoded
        }))
        let dialled = Mutex<PeerConnection?>(nil)
        let connector: ClientProviderConnector = { contact, handlers in
            let (ours, theirs) = MemoryByteStream.pair()
            await server.accept(theirs)
            let connection = try await PeerConnection.dial(over: ours, identity: client, expecting: contact.pubky,
                                                           sleeper: TaskSleeper(), handlers: handlers)
            dialled.withLock { $0 = connection }
            return connection
        }
        let link = ClientProviderLink(contact: Offers.Contact(pubky: provider.pubky, host: "127.0.0.1", port: 1, name: "prov"),
                                      connector: connector, sleeper: TaskSleeper(), initialBackoffMilliseconds: 10,
                                      maximumBackoffMilliseconds: 100, onPush: { _ in }, onReconnect: {})
        let request = QuoteRequest(requestID: "q1", offerID: "o1", amountSat: 25_000)
        let asking = Task { () async -> Result<SwapMessage, ClientEngineError> in
            do throws(ClientEngineError) {
                return .success(try await link.request(request.encoded, id: request.requestID, timeoutMilliseconds: 5_000))
            } catch {
                return .failure(error)
            }
        }
        try await clientEventually("the provider has the request") { asked.withLock { $0 } }
        await link.stop()
        switch await asking.value {
        case .success(let reply): XCTFail("a Reject was sent, not \(reply)")
        case .failure(.rejected(_, reason: let reason)): XCTAssertEqual(reason, "the provider's answer")
        case .failure(let other): XCTFail("the answer was lost: \(other)")
        }
        let connection = try XCTUnwrap(dialled.withLock { $0 })
        try await clientEventually("the connection closes once nothing uses it") { await connection.closedReason != nil }
    }
}

