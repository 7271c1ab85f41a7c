import Bitcoin
import Foundation
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import Synchronization
import XCTest

/// Contact invoices (issue 16) on the regtest hub: a daemon that takes Lightning answers a
/// saved contact's `InvoiceRequest` with a plain invoice of its own LND, signed by its
/// identity; `ContactInvoiceFetcher`, the payer's side, checks it before anything is paid.
final class ContactInvoiceTests: XCTestCase {
    private static let dave = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0xD0, count: 32)))
    private static let mallory = NodeIdentity(seed: try! NodeSeed(bytes: [UInt8](repeating: 0xEE, count: 32)))

    private func fetcher(_ identity: NodeIdentity, _ fixture: DaemonFixture) -> ContactInvoiceFetcher {
        ContactInvoiceFetcher(dialer: PeerDialer(identity: identity, loop: fixture.loop), network: .regtest,
                              nowUnix: { UInt64(Date().timeIntervalSince1970) })
    }

    private func refusal(_ fetcher: ContactInvoiceFetcher, _ contact: Pubky, port: Int, amountMsat: Int64,
                         file: StaticString = #filePath, line: UInt = #line) async -> ContactInvoiceFetchError? {
        do {
            _ = try await fetcher.fetch(from: contact, host: "127.0.0.1", port: port, amountMsat: amountMsat)
            XCTFail("an invoice was made", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testAContactGetsASignedInvoiceOfThePayeesLNDThatPaysAndSettles() async throws {
        let fixture = try await DaemonFixture()
        // erin's own LND ("bob" on the hub); the payer pays from "alice".
        let bob = try await fixture.hub.lightning.addNode(name: "bob", balanceSat: 0)
        let lines = fixture.hubConfig.filter { !$0.hasPrefix("lnd_") }
            + DaemonFixture.lightningConfig(bob, macaroonFile: "bob.macaroon") + ["lightning_receive_max_sat=100000"]
        let (datadir, erinPubky) = try await fixture.dataDirectory("erin", config: lines)
        try Data(try XCTUnwrap([UInt8](hex: bob.macaroonHex))).write(to: URL(fileURLWithPath: datadir + "/bob.macaroon"))
        let erin = try await fixture.start(datadir)
        _ = try await erin.result("contacts.add", ["name": .string("dave"), "pubky": .string(Self.dave.pubky.z32),
                                                   "host": .string("127.0.0.1"), "port": .integer(9)])
        let port = erin.ready.listenPort

        // Its Endpoints: the on-chain address first (old clients take it), then the
        // lightning entry naming erin's pubky.
        let connection = try await PeerDialer(identity: Self.dave, loop: fixture.loop).dial(erinPubky, host: "127.0.0.1", port: port)
        let reply = try await connection.request(EndpointsRequest(requestID: "e1").encoded, id: "e1")
        await connection.close()
        guard case .endpoints(let endpoints) = try SwapMessage(bytes: reply) else { return XCTFail("not Endpoints") }
        XCTAssertEqual(endpoints.endpoints.map(\.type), ["onchain", "lightning"])
        XCTAssertEqual(endpoints.endpoints.last?.lightningPubky, erinPubky)
        XCTAssertEqual(endpoints.endpoints.last?.network, "regtest")

        // A stranger's Endpoints name no lightning entry: erin would refuse its InvoiceRequest,
        // and a payer that saw the entry would choose a rail that cannot be paid.
        let strangerConnection = try await PeerDialer(identity: Self.mallory, loop: fixture.loop)
            .dial(erinPubky, host: "127.0.0.1", port: port)
        let strangerReply = try await strangerConnection.request(EndpointsRequest(requestID: "e2").encoded, id: "e2")
        await strangerConnection.close()
        guard case .endpoints(let strangerEndpoints) = try SwapMessage(bytes: strangerReply) else { return XCTFail("not Endpoints") }
        XCTAssertEqual(strangerEndpoints.endpoints.map(\.type), ["onchain"])

        // 20,000 sat: a signed invoice for 20,000,000 msat payable to erin's LND.
        let dave = fetcher(Self.dave, fixture)
        let fetched = try await dave.fetch(from: erinPubky, host: "127.0.0.1", port: port, amountMsat: 20_000_000,
                                           description: "dinner")
        XCTAssertEqual(fetched.invoice.amountMsat, 20_000_000)
        XCTAssertEqual(fetched.invoice.network, .regtest)
        XCTAssertEqual(fetched.invoice.payeeNodeID, bob.info.identityKey)
        let now = UInt64(Date().timeIntervalSince1970)
        XCTAssertTrue((now + 3_500...now + 3_700).contains(fetched.invoice.expiresAtUnix), "an hour: \(fetched.invoice.expiresAtUnix - now) s")
        let lightning = fixture.hub.lightning.network
        XCTAssertEqual(try lightning.lookupInvoice(node: "bob", paymentHash: fetched.invoice.paymentHash).state, .open)
        var last: SimulatedPayment?
        for await update in try lightning.sendPayment(from: "alice", paymentRequest: fetched.bolt11, feeLimitMsat: 100_000,
                                                      timeoutSeconds: 60) {
            last = update
        }
        XCTAssertEqual(last?.status, .succeeded)
        let settled = try lightning.lookupInvoice(node: "bob", paymentHash: fetched.invoice.paymentHash)
        XCTAssertEqual(settled.state, .settled)
        XCTAssertEqual(settled.memo, "dinner")
        XCTAssertEqual(try lightning.node("bob").balanceMsat, 20_000_000)

        // A stranger is refused; so is an amount over lightning_receive_max_sat.
        let stranger = await refusal(fetcher(Self.mallory, fixture), erinPubky, port: port, amountMsat: 20_000_000)
        XCTAssertEqual(stranger, .refused(code: .notFound, reason: "this node makes invoices for its saved contacts only"))
        guard case .refused(let code, let reason) = await refusal(dave, erinPubky, port: port, amountMsat: 100_001_000) else {
            return XCTFail("not refused")
        }
        XCTAssertEqual(code, .amountOutOfRange)
        XCTAssertTrue(reason.contains("1000 to 100000000 msat"), reason)

        // An invoice signed by anyone but the contact dialled is refused by the payer.
        let request = ContactInvoiceRequest(requestID: "f1", amountMsat: 20_000_000, description: "")
        let forged = Signed(signing: ContactInvoice(requestID: "f1", invoice: fetched.bolt11), with: Self.mallory)
        XCTAssertThrowsError(try dave.check(reply: forged.encoded, to: request, from: erinPubky)) {
            guard case .notSignedByContact = $0 as? ContactInvoiceFetchError else { return XCTFail("\($0)") }
        }
        // The same invoice signed by mallory passes only as mallory's, and then fails
        // the amount check when the request asked for another amount.
        XCTAssertNoThrow(try dave.check(reply: forged.encoded, to: request, from: Self.mallory.pubky))
        let other = ContactInvoiceRequest(requestID: "f1", amountMsat: 21_000_000, description: "")
        XCTAssertThrowsError(try dave.check(reply: forged.encoded, to: other, from: Self.mallory.pubky)) {
            guard case .mismatch = $0 as? ContactInvoiceFetchError else { return XCTFail("\($0)") }
        }

        // Ten invoice requests a minute per contact: dave has made two; the eleventh
        // (twelfth if a token refilled meanwhile: one each 6 s) is rate limited.
        var limitedAt: Int?
        for index in 3...14 {
            let error = await refusal(dave, erinPubky, port: port, amountMsat: 1_000_000_000)
            if case .refused(.rateLimited, let reason) = error {
                XCTAssertTrue(reason.contains("retry in"), reason)
                limitedAt = index
                break
            }
            guard case .refused(.amountOutOfRange, _) = error else { XCTFail("\(String(describing: error))"); break }
        }
        XCTAssertTrue((11...12).contains(limitedAt ?? 0), "limited at \(String(describing: limitedAt))")
        try await erin.stop()
        await fixture.shutDown()
    }

    /// `accept_lightning=0`: no lightning entry, and an InvoiceRequest (even a contact's)
    /// is told plainly that the node takes no Lightning payments.
    func testANodeThatTakesNoLightningListsNoLightningEntryAndRefusesInvoices() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, carolPubky) = try await fixture.dataDirectory("carol", config: fixture.hubConfig + ["accept_lightning=0"])
        let carol = try await fixture.start(datadir)
        _ = try await carol.result("contacts.add", ["name": .string("dave"), "pubky": .string(Self.dave.pubky.z32),
                                                    "host": .string("127.0.0.1"), "port": .integer(9)])
        let connection = try await PeerDialer(identity: Self.dave, loop: fixture.loop)
            .dial(carolPubky, host: "127.0.0.1", port: carol.ready.listenPort)
        let reply = try await connection.request(EndpointsRequest(requestID: "e1").encoded, id: "e1")
        await connection.close()
        guard case .endpoints(let endpoints) = try SwapMessage(bytes: reply) else { return XCTFail("not Endpoints") }
        XCTAssertEqual(endpoints.endpoints.map(\.type), ["onchain"])
        let refused = await refusal(fetcher(Self.dave, fixture), carolPubky, port: carol.ready.listenPort, amountMsat: 20_000_000)
        XCTAssertEqual(refused, .refused(code: .notFound, reason: "this node takes no Lightning payments"))
        try await carol.stop()
        await fixture.shutDown()
    }

    /// A node paid on Lightning only (`accept_onchain=0`) lists its lightning entry alone and
    /// hands out no address; one that takes neither rail refuses the EndpointsRequest
    /// plainly instead of sending an empty list.
    func testANodeThatTakesOnlyLightningListsNoAddressAndOneThatTakesNothingSaysSo() async throws {
        let fixture = try await DaemonFixture()
        let (erinDir, erinPubky) = try await fixture.dataDirectory("erin", config: fixture.hubConfig + ["accept_onchain=0"])
        let (noneDir, nonePubky) = try await fixture.dataDirectory("none", config: fixture.hubConfig
                                                                   + ["accept_onchain=0", "accept_lightning=0"])
        let erin = try await fixture.start(erinDir)
        let none = try await fixture.start(noneDir)
        let dialer = PeerDialer(identity: Self.dave, loop: fixture.loop)
        // To a stranger erin takes nothing: it would refuse its InvoiceRequest.
        let beforeContact = try await dialer.dial(erinPubky, host: "127.0.0.1", port: erin.ready.listenPort)
        let strangerReply = try await beforeContact.request(EndpointsRequest(requestID: "e0").encoded, id: "e0")
        await beforeContact.close()
        guard case .reject(let strangerReject) = try SwapMessage(bytes: strangerReply) else { return XCTFail("not a Reject") }
        XCTAssertEqual(strangerReject.code, .notFound)
        XCTAssertTrue(strangerReject.reason.contains("saved contacts only"), strangerReject.reason)
        _ = try await erin.result("contacts.add", ["name": .string("dave"), "pubky": .string(Self.dave.pubky.z32),
                                                   "host": .string("127.0.0.1"), "port": .integer(9)])
        let toErin = try await dialer.dial(erinPubky, host: "127.0.0.1", port: erin.ready.listenPort)
        let erinReply = try await toErin.request(EndpointsRequest(requestID: "e1").encoded, id: "e1")
        await toErin.close()
        guard case .endpoints(let endpoints) = try SwapMessage(bytes: erinReply) else { return XCTFail("not Endpoints") }
        XCTAssertEqual(endpoints.endpoints.map(\.type), ["lightning"])
        XCTAssertEqual(endpoints.endpoints.first?.lightningPubky, erinPubky)
        let toNone = try await dialer.dial(nonePubky, host: "127.0.0.1", port: none.ready.listenPort)
        let noneReply = try await toNone.request(EndpointsRequest(requestID: "e2").encoded, id: "e2")
        await toNone.close()
        guard case .reject(let reject) = try SwapMessage(bytes: noneReply) else { return XCTFail("not a Reject") }
        XCTAssertEqual(reject.code, .notFound)
        XCTAssertTrue(reject.reason.contains("takes no payments"), reject.reason)
        try await erin.stop()
        try await none.stop()
        await fixture.shutDown()
    }

    /// The desk alone, on a clock the test sets and an LND that is down: each refusal says
    /// to try later without naming the backend, and the per-contact bucket counts exactly.
    func testTheDeskRateLimitsEachContactAndSaysToRetryWhenLNDIsDown() async throws {
        let loop = try EventLoop()
        let closed = try await TCPListener.bind(port: 0, loop: loop)
        let closedPort = closed.port
        await closed.close()
        let down = LNDRESTClient(configuration: .init(host: "127.0.0.1", port: closedPort, macaroon: [1], network: .regtest),
                                 sleeper: loop.sleeper) { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
        let now = Mutex<UInt64>(1_000_000)
        let erin = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0xE1, count: 32)))
        let desk = ContactInvoiceDesk(identity: erin, lightning: down, limits: ContactInvoiceLimits(minimumMsat: 1_000, maximumMsat: 10_000_000),
                                      perMinute: 3, nowMilliseconds: { now.withLock { $0 } }) { _ in true }
        func code(_ peer: Pubky, amountMsat: Int64 = 5_000) async throws -> (RejectCode, String) {
            let reply = await desk.answer(ContactInvoiceRequest(requestID: "r", amountMsat: amountMsat, description: ""), from: peer)
            guard case .reject(let reject) = try SwapMessage(bytes: reply) else { throw CancellationError() }
            return (reject.code, reject.reason)
        }
        for _ in 0..<3 {
            let (got, reason) = try await code(Self.dave.pubky)
            XCTAssertEqual(got, .internal)
            XCTAssertEqual(reason, "this node's Lightning node cannot make an invoice now; try again later")
        }
        let (limited, reason) = try await code(Self.dave.pubky)
        XCTAssertEqual(limited, .rateLimited)
        XCTAssertTrue(reason.contains("retry in 200"), reason) // one token each 20 s
        let (otherPeer, _) = try await code(Self.mallory.pubky)
        XCTAssertEqual(otherPeer, .internal, "another contact has its own bucket")
        now.withLock { $0 += 21_000 }
        let (refilled, _) = try await code(Self.dave.pubky, amountMsat: 999)
        XCTAssertEqual(refilled, .amountOutOfRange, "one token back after 21 s; the amount is checked next")
        let (again, _) = try await code(Self.dave.pubky)
        XCTAssertEqual(again, .rateLimited)
        await down.shutDown()
        await loop.shutdown()
    }
}
