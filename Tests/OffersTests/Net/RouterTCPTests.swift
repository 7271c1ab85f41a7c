import HTLC
@testable import Offers
import Synchronization
import Transport
import XCTest

/// The router over real loopback TCP on one event loop: five contacts, each at its own
/// port (two providers with different fees, one offline, two running no provider). The
/// same probe path as the daemon's: TCP connect, Noise handshake expecting the contact's
/// pubky, framed swap/1 JSON.
final class RouterTCPTests: XCTestCase {
    private let limits = PeerLimits(channel: ChannelLimits(handshakeTimeoutMilliseconds: 3_000, idleTimeoutMilliseconds: 10_000))

    /// Dials a contact's address with plain TCP on `loop`, counting dials so the test can
    /// see which contacts were probed over the network (and which came from the cache).
    private final class TCPContacts: Sendable {
        let loop: EventLoop
        private let dials = Atomic<Int>(0)

        init(loop: EventLoop) {
            self.loop = loop
        }

        var dialCount: Int { dials.load(ordering: .relaxed) }

        func connect(_ contact: Contact) async throws -> any ByteStream {
            dials.add(1, ordering: .relaxed)
            return try await TCPConnection.connect(host: contact.host, port: Int(contact.port), loop: loop)
        }
    }

    private func listen(_ identity: NodeIdentity, _ handlers: PeerHandlers, loop: EventLoop) async throws -> PeerListener {
        let server = PeerServer(identity: identity, sleeper: loop.sleeper, limits: limits, handlers: handlers)
        return try await PeerListener.start(server: server, host: "127.0.0.1", port: 0, loop: loop)
    }

    private func contact(_ identity: NodeIdentity, _ name: String, port: Int) -> Contact {
        Contact(pubky: identity.pubky, host: "127.0.0.1", port: UInt16(port), name: name)
    }

    /// A loopback port with nothing listening: bound by the kernel's choice, then closed, so
    /// a connect there is refused. (Another process could take it in between; the kernel
    /// hands out ephemeral ports in rotation, so that is unlikely, and the test would then
    /// fail on the offline contact's reason rather than pass by accident.)
    private func closedPort(loop: EventLoop) async throws -> Int {
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let port = listener.port
        await listener.close()
        return port
    }

    func testPicksTheCheaperProviderAndReportsTheOthers() async throws {
        let loop = try EventLoop()
        let clock = TestClock(Fixtures.now)
        let cheap = Fixtures.identity(0x71), dear = Fixtures.identity(0x72), offline = Fixtures.identity(0x73)
        let rejecter = Fixtures.identity(0x74), stranger = Fixtures.identity(0x75)

        let cheapDesk = RouterFixtures.desk(cheap, base: 200, ppm: 1_000, clock: clock)
        let cheapNode = try await listen(cheap, cheapDesk.handlers, loop: loop)
        let dearNode = try await listen(dear, RouterFixtures.desk(dear, base: 500, ppm: 2_000, clock: clock).handlers, loop: loop)
        // Runs the node, but no provider: refuses offer requests.
        let rejecterNode = try await listen(rejecter, PeerHandlers(onRequest: { request, _ in
            let id = (try? MessageEnvelope.parse(request))?.requestID ?? "?"
            return Reject(requestID: id, code: .notFound, reason: "no provider on this node").encoded
        }), loop: loop)
        // Some other program speaking the transport: answers with a type swap/1 does not have.
        let strangerNode = try await listen(stranger, PeerHandlers(onRequest: { request, _ in
            let id = (try? MessageEnvelope.parse(request))?.requestID ?? "?"
            return Array(#"{"type":"Hello","request_id":"\#(id)"}"#.utf8)
        }), loop: loop)
        let offlinePort = try await closedPort(loop: loop)
        let nodes = [cheapNode, dearNode, rejecterNode, strangerNode]
        XCTAssertEqual(Set(nodes.map(\.port) + [offlinePort]).count, 5, "every contact has its own port")

        let contacts = [
            contact(dear, "dear", port: dearNode.port), contact(offline, "offline", port: offlinePort),
            contact(rejecter, "rejecter", port: rejecterNode.port), contact(cheap, "cheap", port: cheapNode.port),
            contact(stranger, "stranger", port: strangerNode.port),
        ]
        let tcp = TCPContacts(loop: loop)
        let prober = PeerOfferProber(identity: Fixtures.client, network: .regtest, sleeper: loop.sleeper, limits: limits) {
            try await tcp.connect($0)
        }
        let router = Router(settings: .init(network: .regtest), prober: prober, sleeper: loop.sleeper, clock: clock)
        let selector = RouteSelector(amountSat: 100_000, destination: .p2wpkh, claimFeeRate: Fixtures.rate(2))

        let decision = await router.route(selector, contacts: contacts)

        XCTAssertEqual(decision.probed, 5)
        XCTAssertEqual(tcp.dialCount, 5)
        XCTAssertEqual(decision.choice?.provider.contact.name, "cheap", decision.debugLines.joined(separator: "\n"))
        XCTAssertEqual(decision.ranked.map(\.provider.contact.name), ["cheap", "dear"])
        let reasons = Dictionary(uniqueKeysWithValues: decision.skipped.map { ($0.contact.name, $0.reason) })
        XCTAssertEqual(Set(reasons.keys), ["offline", "rejecter", "stranger"], decision.debugLines.joined(separator: "\n"))
        // Refused by the kernel: the prober names the address it could not reach.
        guard case .unreachable(let why) = reasons["offline"] else {
            return XCTFail("offline: \(String(describing: reasons["offline"]))")
        }
        XCTAssertTrue(why.contains("127.0.0.1:\(offlinePort)"), why)
        XCTAssertEqual(reasons["rejecter"], .rejected(.notFound))
        guard case .notAProvider = reasons["stranger"] else {
            return XCTFail("stranger: \(String(describing: reasons["stranger"]))")
        }
        XCTAssertEqual(decision.debugLines.count, 5)
        XCTAssertTrue(decision.debugLines[0].hasPrefix("chosen: cheap"), decision.debugLines[0])

        // The offers came over TCP signed by each contact's own key, for this network.
        let choice = try XCTUnwrap(decision.choice)
        let runnerUp = decision.ranked[1]
        XCTAssertEqual(choice.provider.terms.providerPubky, cheap.pubky)
        XCTAssertTrue(choice.provider.signed?.isSigned(by: cheap.pubky) ?? false)
        XCTAssertEqual(runnerUp.provider.terms.providerPubky, dear.pubky)
        XCTAssertEqual(choice.provider.terms.baseFeeSat, 200)
        XCTAssertEqual(runnerUp.provider.terms.baseFeeSat, 500)
        // Same amount, same claim: only the service fee (and the routing fee on the larger
        // invoice) tells them apart.
        XCTAssertEqual(choice.lockAmountSat, runnerUp.lockAmountSat)
        XCTAssertEqual(choice.serviceFeeSat, 200 + choice.lockAmountSat / 1_000)
        XCTAssertEqual(runnerUp.serviceFeeSat, 500 + runnerUp.lockAmountSat * 2 / 1_000)
        XCTAssertLessThan(choice.totalCostSat, runnerUp.totalCostSat)

        // Cached offers: asking again dials only the contact that could not be reached; the
        // two that said they run no provider are not asked again for a while.
        let again = await router.route(selector, contacts: contacts)
        XCTAssertEqual(again.choice?.provider.contact.name, "cheap")
        XCTAssertEqual(again.probed, 1)
        XCTAssertEqual(tcp.dialCount, 6)

        // The chosen provider quotes over the same TCP path as the probe (a fresh connection
        // to the contact's address, handshake expecting its pubky), and the quote passes policy.
        let chosen = choice.provider.contact
        let connection = try await PeerConnection.dial(over: try await tcp.connect(chosen), identity: Fixtures.client,
                                                       expecting: chosen.pubky, sleeper: loop.sleeper, limits: limits)
        XCTAssertEqual(tcp.dialCount, 7)
        // Bound to the client the handshake authenticated.
        let quote = try await RouterFixtures.assertQuoteBoundToClient(over: connection, choice: choice, provider: cheap.pubky,
                                                                      desk: cheapDesk, requestID: "quote-tcp-1",
                                                                      nowUnix: clock.nowUnix)
        XCTAssertEqual(quote.amountSat, choice.lockAmountSat)

        await connection.close()
        for node in nodes { await node.close() }
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0, "a libuv handle leaked")
    }

    /// A provider dialled at the right port but under the wrong pubky fails the handshake:
    /// the router reports it unreachable rather than trusting whoever answers there.
    func testAnImpostorAtAContactsAddressIsSkipped() async throws {
        let loop = try EventLoop()
        let clock = TestClock(Fixtures.now)
        let real = Fixtures.identity(0x76), impostor = Fixtures.identity(0x77)
        let node = try await listen(impostor, RouterFixtures.desk(impostor, base: 1, ppm: 1, clock: clock).handlers, loop: loop)
        let prober = PeerOfferProber(identity: Fixtures.client, network: .regtest, sleeper: loop.sleeper, limits: limits) {
            try await TCPConnection.connect(host: $0.host, port: Int($0.port), loop: loop)
        }
        let router = Router(settings: .init(network: .regtest), prober: prober, sleeper: loop.sleeper, clock: clock)
        let selector = RouteSelector(amountSat: 100_000, destination: .p2wpkh, claimFeeRate: Fixtures.rate(2))

        let decision = await router.route(selector, contacts: [contact(real, "real", port: node.port)])

        XCTAssertNil(decision.choice)
        XCTAssertEqual(decision.skipped.count, 1)
        guard case .unreachable(let why)? = decision.skipped.first?.reason else {
            return XCTFail("\(decision.debugLines)")
        }
        XCTAssertTrue(why.hasPrefix("handshake failed"), why)
        await node.close()
        await loop.shutdown()
        XCTAssertEqual(loop.loopCloseResult, 0, "a libuv handle leaked")
    }
}
