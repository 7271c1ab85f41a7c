import HTLC
@testable import Offers
import Synchronization
import Transport
import TestSupport
import XCTest

/// The router over real peer connections (PeerServer / PeerConnection, Noise handshakes,
/// framed JSON) on in-memory byte streams: five contacts, two providers with different
/// fees, one offline, two running no provider.
final class RouterPeerTests: XCTestCase {
    private let limits = PeerLimits(channel: ChannelLimits(handshakeTimeoutMilliseconds: 3_000, idleTimeoutMilliseconds: 10_000))

    /// Named nodes on a pretend network: the connector hands each dial a fresh in-memory
    /// stream into the named server, or fails for nodes that are offline.
    private final class Network: Sendable {
        private let servers: Mutex<[Pubky: PeerServer]> = Mutex([:])
        private let dials = Atomic<Int>(0)

        func add(_ server: PeerServer) {
            servers.withLock { $0[server.identity.pubky] = server }
        }

        var dialCount: Int { dials.load(ordering: .relaxed) }

        func connect(_ contact: Contact) async throws -> any ByteStream {
            dials.add(1, ordering: .relaxed)
            guard let server = servers.withLock({ $0[contact.pubky] }) else { throw ByteStreamError.closed }
            let (near, far) = MemoryByteStream.pair()
            await server.accept(far)
            return near
        }

        func shutdown() async {
            for server in servers.withLock({ Array($0.values) }) { await server.shutdown() }
        }
    }

    private func contact(_ identity: NodeIdentity, _ name: String, port: UInt16) -> Contact {
        Contact(pubky: identity.pubky, host: "127.0.0.1", port: port, name: name)
    }

    func testPicksTheCheaperProviderAndReportsTheOthers() async throws {
        let clock = TestClock(Fixtures.now)
        let network = Network()
        let cheap = Fixtures.identity(0x61), dear = Fixtures.identity(0x62), offline = Fixtures.identity(0x63)
        let rejecter = Fixtures.identity(0x64), stranger = Fixtures.identity(0x65)
        let cheapDesk = RouterFixtures.desk(cheap, base: 200, ppm: 1_000, clock: clock)
        network.add(PeerServer(identity: cheap, sleeper: TaskSleeper(), limits: limits, handlers: cheapDesk.handlers))
        network.add(PeerServer(identity: dear, sleeper: TaskSleeper(), limits: limits,
                               handlers: RouterFixtures.desk(dear, base: 500, ppm: 2_000, clock: clock).handlers))
        // Runs the node, but no provider: refuses offer requests.
        network.add(PeerServer(identity: rejecter, sleeper: TaskSleeper(), limits: limits, handlers: PeerHandlers(onRequest: { request, _ in
            let id = (try? MessageEnvelope.parse(request))?.requestID ?? "?"
            return Reject(requestID: id, code: .notFound, reason: "no provider on this node").encoded
        })))
        // Some other program speaking the transport: answers with a type swap/1 does not have.
        network.add(PeerServer(identity: stranger, sleeper: TaskSleeper(), limits: limits, handlers: PeerHandlers(onRequest: { request, _ in
            let id = (try? MessageEnvelope.parse(request))?.requestID ?? "?"
            return Array(#"{"type":"Hello","request_id":"\#(id)"}"#.utf8)
        })))
        let contacts = [
            contact(dear, "dear", port: 1), contact(offline, "offline", port: 2), contact(rejecter, "rejecter", port: 3),
            contact(cheap, "cheap", port: 4), contact(stranger, "stranger", port: 5),
        ]
        let prober = PeerOfferProber(identity: Fixtures.client, network: .regtest, sleeper: TaskSleeper(), limits: limits) {
            try await network.connect($0)
        }
        let router = Router(settings: .init(network: .regtest), prober: prober, sleeper: TaskSleeper(), clock: clock)
        let selector = RouteSelector(amountSat: 100_000, destination: .p2wpkh, claimFeeRate: Fixtures.rate(2))

        let decision = await router.route(selector, contacts: contacts)

        XCTAssertEqual(decision.probed, 5)
        XCTAssertEqual(decision.choice?.provider.contact.name, "cheap")
        XCTAssertEqual(decision.ranked.map(\.provider.contact.name), ["cheap", "dear"])
        let reasons = Dictionary(uniqueKeysWithValues: decision.skipped.map { ($0.contact.name, $0.reason) })
        XCTAssertEqual(reasons.count, 3, decision.debugLines.joined(separator: "\n"))
        guard case .unreachable = reasons["offline"] else { return XCTFail("offline: \(String(describing: reasons["offline"]))") }
        XCTAssertEqual(reasons["rejecter"], .rejected(.notFound))
        guard case .notAProvider = reasons["stranger"] else { return XCTFail("stranger: \(String(describing: reasons["stranger"]))") }
        XCTAssertEqual(decision.debugLines.count, 5)

        // The costs, part by part: claim of a Taproot contract to P2WPKH at 2 sat/vB.
        let choice = try XCTUnwrap(decision.choice)
        let claimFee = ContractSizes.claimFee(.taprootBoltz, destination: .p2wpkh, rate: Fixtures.rate(2))
        XCTAssertEqual(choice.contractType, .taprootBoltz)
        XCTAssertEqual(choice.claimFeeSat, claimFee)
        XCTAssertEqual(choice.lockAmountSat, 100_000 + claimFee)
        XCTAssertEqual(choice.serviceFeeSat, 200 + (100_000 + claimFee) / 1_000)
        XCTAssertEqual(choice.providerOnchainFeeSat, 745)
        XCTAssertEqual(choice.invoiceTotalSat, choice.lockAmountSat + choice.serviceFeeSat + 745)
        XCTAssertEqual(choice.routingFeeSat, 1 + (choice.invoiceTotalSat + 999) / 1_000)
        XCTAssertLessThan(choice.totalCostSat, decision.ranked[1].totalCostSat)

        // Offers are cached: asking again probes only the contact that could not be reached.
        // The two that said they run no provider are not asked again for a while.
        let dialsBefore = network.dialCount
        let again = await router.route(selector, contacts: contacts)
        XCTAssertEqual(again.choice?.provider.contact.name, "cheap")
        XCTAssertEqual(again.probed, 1)
        XCTAssertEqual(again.heldBack, 2)
        XCTAssertEqual(network.dialCount - dialsBefore, 1)

        // The chosen provider quotes over a fresh connection, and the quote passes policy.
        let connection = try await PeerConnection.dial(over: try await network.connect(choice.provider.contact),
                                                       identity: Fixtures.client, expecting: cheap.pubky,
                                                       sleeper: TaskSleeper(), limits: limits)
        // Bound to this client: another cannot redeem it, this one can, once.
        _ = try await RouterFixtures.assertQuoteBoundToClient(over: connection, choice: choice, provider: cheap.pubky,
                                                              desk: cheapDesk, requestID: "quote-1", nowUnix: clock.nowUnix)
        await connection.close()
        await network.shutdown()
    }

    /// A contact that takes the offer request and never answers gave no answer, which is
    /// not the same as saying it runs no provider: it is held back as one that did not
    /// answer in time (`timedOutHoldSeconds`, a minute), not for the no-provider hold.
    func testAnOfferRequestNeverAnsweredIsNoAnswerInTimeNotNoProvider() async throws {
        let network = Network()
        let silent = Fixtures.identity(0x66)
        network.add(PeerServer(identity: silent, sleeper: TaskSleeper(), limits: limits, handlers: PeerHandlers(onRequest: { _, _ in
            try? await Task.sleep(nanoseconds: 2_000_000_000)
            return []
        })))
        let prober = PeerOfferProber(identity: Fixtures.client, network: .regtest, sleeper: TaskSleeper(), limits: limits) {
            try await network.connect($0)
        }
        let result = await prober.probe(contact(silent, "silent", port: 6), timeoutMilliseconds: 200)
        guard case .skipped(let reason) = result else { return XCTFail("silent: \(result)") }
        XCTAssertEqual(reason, .timedOut(milliseconds: 200))
        XCTAssertFalse(reason.saysNoProvider)
        XCTAssertTrue(SkipReason.rejected(.notFound).saysNoProvider)
        await network.shutdown()
    }
}

func XCTAssertThrowsAsync<T>(_ body: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await body()
        XCTFail("expected an error", file: file, line: line)
    } catch {}
}
