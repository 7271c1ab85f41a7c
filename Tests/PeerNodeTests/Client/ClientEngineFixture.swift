#if canImport(Glibc)
import Glibc
#endif
import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Synchronization
import TestSupport
import Transport
import XCTest

/// One client engine against a scripted provider on the in-process hub: Lightning nodes
/// `client` and `provider`, a provider wallet with mature coins, a contact wallet whose
/// address is the destination, and the engine's store, follower and progress log.
final class ClientEngineFixture: Sendable {
    static let clientSeed = [UInt8](repeating: 0x71, count: 32)
    static let clientBalanceSat: UInt64 = 2_000_000

    let hub: HubFixture
    let clientLND: LNDRESTClient
    let providerLND: LNDRESTClient
    let provider: ClientScriptedProvider
    let contactWallet: Wallet
    let destination: Address
    let clientIdentity: NodeIdentity
    let store: ClientMemorySwapStore
    let follower: ChainFollower
    let followerTask: Task<Void, Never>
    let progress = ClientProgressLog()

    init(lock: ClientScriptedProvider.Lock) async throws {
        hub = try await HubFixture.start(lightningNodes: [("client", Self.clientBalanceSat * 1_000), ("provider", 10_000_000)],
                                       clock: { UInt64(time(nil)) }, feeEstimate: nil)
        let providerWallet = try hub.wallet(seed: 0x51)
        try hub.mine(110, to: await providerWallet.newAddress().scriptPubKey)
        _ = try await providerWallet.sync()
        contactWallet = try hub.wallet(seed: 0x52)
        destination = await contactWallet.newAddress().address
        clientLND = try await hub.lndClient("client", subscriptionRetryMilliseconds: 500)
        providerLND = try await hub.lndClient("provider", subscriptionRetryMilliseconds: 500)
        provider = try ClientScriptedProvider(hub: hub, lnd: providerLND, wallet: providerWallet, seed: 0x61, lock: lock)
        clientIdentity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x72, count: 32)))
        store = ClientMemorySwapStore()
        (follower, followerTask) = hub.follower()
    }

    func engine(giveUpSeconds: UInt64 = 600, confirmationWaitMilliseconds: UInt64 = 300, allowsZeroConf: Bool? = nil,
                quotePolicy: QuotePolicy = QuotePolicy(), store: (any SwapStore)? = nil,
                lightning: LNDRESTClient? = nil, log: @escaping @Sendable (String) -> Void = { _ in }) throws -> ClientEngine {
        let configuration = ClientEngineConfiguration(network: .regtest, quotePolicy: quotePolicy, allowsZeroConf: allowsZeroConf,
                                                      giveUpSeconds: giveUpSeconds,
                                                      confirmationWaitMilliseconds: confirmationWaitMilliseconds)
        let engine = try ClientEngine(configuration: configuration, seed: Self.clientSeed, store: store ?? self.store,
                                      lightning: lightning ?? clientLND, chain: hub.backend, feeEstimator: FeeEstimator(backend: hub.backend),
                                      follower: follower,
                                      connector: provider.connector(clientIdentity: clientIdentity, sleeper: hub.sleeper),
                                      clock: ClientWallClock(), sleeper: hub.sleeper, log: log)
        let progress = self.progress
        Task {
            for await event in engine.progress { progress.append(event) }
        }
        return engine
    }

    /// The router's decision over the one contact, probed over the transport.
    /// `engine` pays `amountSat` to the destination along `route`; the test fails if that
    /// takes longer than `seconds`.
    func pay(_ engine: ClientEngine, amountSat: Int64, route: RouteDecision, purpose: ClaimPurpose = .payContact,
             within seconds: Double) async throws -> ClientPayReport {
        let destination = self.destination
        return try await within(seconds: seconds) {
            try await engine.pay(destination: destination, amountSat: amountSat, route: route, purpose: purpose)
        }
    }

    func route(amountSat: Int64) async throws -> RouteDecision {
        let provider = self.provider
        let prober = PeerOfferProber(identity: clientIdentity, network: .regtest, sleeper: hub.sleeper) { _ in
            let (near, far) = MemoryByteStream.pair()
            await provider.peerServer().accept(far)
            return near
        }
        let router = Router(settings: Router.Settings(network: .regtest), prober: prober, sleeper: hub.sleeper,
                            clock: ClientWallClock())
        let rate = try await FeeEstimator(backend: hub.backend).feeRate(targetBlocks: 2)
        return await router.route(RouteSelector(amountSat: amountSat, destination: .p2tr, claimFeeRate: rate),
                                  contacts: [provider.contact])
    }

    func preimage(ofSwap id: String, in store: (any SwapStore)? = nil) async throws -> [UInt8] {
        let record = try await XCTUnwrapAsync(try await (store ?? self.store).swap(id))
        return try SwapKeyChain(seed: Self.clientSeed, network: .regtest)
            .secrets(index: record.swapIndex, scheme: record.keyScheme).preimage
    }

    func paymentHash(ofSwap id: String) async throws -> [UInt8] {
        let record = try await XCTUnwrapAsync(try await store.swap(id))
        return try SwapKeyChain(seed: Self.clientSeed, network: .regtest)
            .secrets(index: record.swapIndex, scheme: record.keyScheme).paymentHash
    }

    func kinds(of id: String) async throws -> [String] {
        try await store.events(of: id).map(\.kind)
    }

    func lastKind(of id: String) async throws -> String? {
        try await store.lastEvent(of: id)?.kind
    }

    /// Mines the claim's block, waits for swap `id` to complete, and checks that the
    /// destination holds exactly `amountSat`.
    func mineUntilDelivered(_ id: String, amountSat: Int64, file: StaticString = #filePath, line: UInt = #line) async throws {
        try hub.mine(1)
        try await clientEventually("the swap completes") { try await self.lastKind(of: id) == "completed" }
        _ = try await contactWallet.sync()
        let received = await contactWallet.balance()
        XCTAssertEqual(received.total, amountSat, "the destination holds exactly X", file: file, line: line)
    }

    /// Waits until the client's LND reports the payment for `paymentHash` succeeded.
    func trackedPaymentSucceeds(_ paymentHash: [UInt8]) async throws {
        try await clientEventually("the tracked payment succeeds") {
            if case .succeeded = try await self.clientLND.paymentStatus(paymentHash: paymentHash) { return true }
            return false
        }
    }

    func clientBalanceMsat() throws -> UInt64 { try hub.lightning.node("client").balanceMsat }

    /// Transactions on chain or in the mempool spending `outpoint`.
    func spends(of outpoint: OutPoint) -> [Transaction] {
        hub.transactions(fromHeight: 0).filter { $0.inputs.contains { $0.previousOutput == outpoint } }
    }

    /// Whether any transaction anywhere carries `secret` in a witness.
    func chainReveals(_ secret: [UInt8]) -> Bool {
        hub.transactions(fromHeight: 0).contains { $0.inputs.contains { $0.witness.stack.contains(secret) } }
    }

    func shutDown(_ engines: ClientEngine...) async {
        for engine in engines { await engine.shutDown() }
        followerTask.cancel()
        await follower.finish()
        await provider.shutDown()
        await hub.shutDown([clientLND, providerLND])
    }
}

func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}

/// Progress events collected from an engine's stream.
final class ClientProgressLog: Sendable {
    private let events = Mutex<[ClientProgress]>([])
    func append(_ event: ClientProgress) { events.withLock { $0.append(event) } }
    var all: [ClientProgress] { events.withLock { $0 } }
}
