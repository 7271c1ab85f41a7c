import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// `SwapListRequest` between real peers (Noise over memory streams) on the hub: a provider's
/// store answers its client, and only it; a client that lost its database re-creates its
/// unspent lock from that answer; the client's answer in turn gives a provider that lost
/// its own the swap back. A peer of before these messages, and one that sends another
/// node's swaps, leave nothing written.
final class SwapListRecoveryTests: XCTestCase {
    var harness: SubmarineProviderHarness!
    private var servers: [PeerServer] = []
    private var stores: [SQLiteSwapStore] = []

    override func tearDown() async throws {
        for server in servers { await server.shutdown() }
        for store in stores { await store.close() }
        await harness?.shutDown()
        harness = nil
    }

    private func store(_ name: String) async throws -> SQLiteSwapStore {
        let store = try SQLiteSwapStore.open(path: try StoreFixture.directory(for: self) + "/\(name).sqlite")
        stores.append(store)
        return store
    }

    /// A peer at `identity` answering every request with `answer`.
    private func serve(_ identity: NodeIdentity, _ answer: @escaping @Sendable ([UInt8], Pubky) async -> [UInt8]) -> PeerServer {
        let server = PeerServer(identity: identity, sleeper: harness.hub.sleeper,
                                handlers: PeerHandlers(onRequest: { request, peer in await answer(request, peer) }))
        servers.append(server)
        return server
    }

    private func fetcher(as identity: NodeIdentity, servers: [Pubky: PeerServer]) -> SwapListFetcher {
        let sleeper = harness.hub.sleeper
        return SwapListFetcher(connect: { contact in
            guard let server = servers[contact.pubky] else { throw ProviderTestFailure("nobody at \(contact.name)") }
            let (near, far) = MemoryByteStream.pair()
            await server.accept(far)
            return try await PeerConnection.dial(over: near, identity: identity, expecting: contact.pubky, sleeper: sleeper)
        }, timeoutMilliseconds: 10_000)
    }

    private func contact(_ identity: NodeIdentity, _ name: String) -> Offers.Contact {
        Offers.Contact(pubky: identity.pubky, host: "in-memory", port: 1, name: name)
    }

    func testBothSidesGetTheirSwapBackFromTheOthersListAndNothingElse() async throws {
        harness = try await SubmarineProviderHarness.start(storePath: try StoreFixture.directory(for: self) + "/provider.sqlite")
        let (_, _, accept, contract) = try await harness.startSwap(amount: 30_000)
        let lock = try await harness.lock(contract, amount: accept.totalSat)
        try await harness.waitForState(.lockSeen, of: accept.swapID)

        // The provider's store answers its client with the swap, and a stranger with nothing.
        let providerDesk = SwapListDesk(store: harness.store, identity: harness.identity, network: .regtest)
        let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x0e, count: 32)))
        guard case .swapList(let none) = try SwapMessage(bytes: await providerDesk.answer(SwapListRequest(requestID: "s"),
                                                                                         from: stranger.pubky)) else {
            return XCTFail("no SwapList")
        }
        XCTAssertEqual(none.total, 0)
        XCTAssertEqual(none.swaps, [])

        let oldPeer = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x0f, count: 32)))
        let liar = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x10, count: 32)))
        let client = harness.client
        let servers: [Pubky: PeerServer] = [
            harness.identity.pubky: serve(harness.identity) { request, peer in
                guard case .swapListRequest(let list)? = try? SwapMessage(bytes: request) else { return [] }
                return await providerDesk.answer(list, from: peer)
            },
            // What a node of before these messages answers: the type is unknown to it.
            oldPeer.pubky: serve(oldPeer) { request, _ in
                Reject(requestID: (try? MessageEnvelope.parse(request))?.requestID ?? "unknown", error: .unknownMessageType)
                    .encoded
            },
            // Passes the provider's answer off as its own: the swap is not this peer's to give.
            liar.pubky: serve(liar) { request, _ in
                guard case .swapListRequest(let list)? = try? SwapMessage(bytes: request) else { return [] }
                return await providerDesk.answer(list, from: client.pubky)
            },
        ]

        // The client lost its database: its seed, its contacts and the list give the lock back.
        let clientStore = try await store("client")
        let clientRecreator = try SwapRecreator(seed: SubmarineProviderHarness.clientSeed, network: .regtest,
                                                chain: harness.hub.backend, store: clientStore)
        let clientRecovery = SwapListRecovery(fetcher: fetcher(as: client, servers: servers), recreator: clientRecreator,
                                              store: clientStore, lightning: harness.providerLND, network: .regtest,
                                              ownPubky: client.pubky)
        let reports = try await clientRecovery.run(
            contacts: [contact(oldPeer, "old"), contact(liar, "liar"), contact(harness.identity, "provider")],
            indexesSearched: 100, fromHeight: 0, nowUnix: harness.clock.nowUnix)
        XCTAssertEqual(reports.map(\.contact.name), ["old", "liar", "provider"])
        XCTAssertTrue(reports[0].failure?.contains("does not list swaps") == true, "\(String(describing: reports[0].failure))")
        XCTAssertEqual(reports[1].listed, 1)
        XCTAssertEqual(reports[1].recreated.count, 0)
        XCTAssertTrue(reports[1].skipped.first?.reason.contains("not signed by the provider") == true, "\(reports[1].skipped)")
        XCTAssertEqual(reports[2].listed, 1)
        XCTAssertEqual(reports[2].skipped.count, 0, "\(reports[2].skipped)")
        let recreated = try XCTUnwrap(reports[2].recreated.first)
        let clientSwapID = "sub-" + accept.quoteID
        XCTAssertEqual(recreated.swapID, clientSwapID)
        XCTAssertEqual(recreated.role, .client)
        XCTAssertEqual(recreated.index, 0, "the refund key was found at the client's index")
        XCTAssertEqual(recreated.lock.txid, lock.txid)
        XCTAssertEqual(recreated.resumesAt, SubmarineClientPhase.lockBroadcast.rawValue, "the lock is still in the mempool")
        let clientRecord = try await XCTUnwrapAsync(try await clientStore.swap(clientSwapID))
        XCTAssertEqual(clientRecord.peer, harness.identity.pubky.z32)
        XCTAssertEqual(try SubmarineClientRecord(json: clientRecord.contract).provider.name, "provider")
        let written = try await clientStore.allSwaps(limit: 10)
        XCTAssertEqual(written.count, 1, "the liar's copy wrote nothing")
        // Asked again, the swap is already known: skipped, not duplicated.
        let again = try await clientRecovery.run(contacts: [contact(harness.identity, "provider")], indexesSearched: 100,
                                                 fromHeight: 0, nowUnix: harness.clock.nowUnix)
        XCTAssertEqual(again.first?.skipped.first?.reason, "already in the database")

        // Now the provider loses its database: the client's re-created record answers it.
        let clientDesk = SwapListDesk(store: clientStore, identity: client, network: .regtest)
        let clientServer = serve(client) { request, peer in
            guard case .swapListRequest(let list)? = try? SwapMessage(bytes: request) else { return [] }
            return await clientDesk.answer(list, from: peer)
        }
        let providerStore = try await store("provider-fresh")
        let providerRecreator = try SwapRecreator(seed: SubmarineProviderHarness.providerSeed, network: .regtest,
                                                  chain: harness.hub.backend, store: providerStore,
                                                  lightning: harness.providerLND)
        let providerRecovery = SwapListRecovery(fetcher: fetcher(as: harness.identity, servers: [client.pubky: clientServer]),
                                                recreator: providerRecreator, store: providerStore,
                                                lightning: harness.providerLND, network: .regtest,
                                                ownPubky: harness.identity.pubky)
        let providerReports = try await providerRecovery.run(contacts: [contact(client, "client")], indexesSearched: 100,
                                                             fromHeight: 0, nowUnix: harness.clock.nowUnix)
        let providerOutcome = try XCTUnwrap(providerReports.first?.recreated.first, "\(providerReports.first?.skipped ?? [])")
        XCTAssertEqual(providerOutcome.swapID, accept.swapID)
        XCTAssertEqual(providerOutcome.role, .provider)
        // Its Lightning node never paid this invoice: recovery will not either.
        XCTAssertEqual(providerOutcome.resumesAt, SubmarineProviderState.Kind.paymentFailed.rawValue)
    }
}
