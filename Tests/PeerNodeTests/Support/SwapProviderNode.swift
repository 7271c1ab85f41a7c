import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Synchronization
import Transport

/// A provider node on the hub, assembled the way the daemon assembles one: the provider
/// engine over a SQLite store file, a wallet funded with matured coinbases, its Lightning
/// node over LND REST, a chain follower running on its own, and a `PeerServer` behind a
/// `PeerListener` on loopback TCP whose pushes are the engine's status updates.
///
/// `restart` replaces the engine, the store connection, the wallet and the desk (a new
/// process on the same data directory) while the listener keeps its port, as a daemon
/// restarted with the same config would; the connections the old process held are closed.
final class SwapProviderNode: Sendable {
    static let seed = [UInt8](repeating: 0x5a, count: 32)
    /// Short for regtest, still inside every inequality of DESIGN 6.
    static let htlcTimeoutBlocks = 40

    /// Whether the provider offers and co-signs cooperative claims (`musig2`), and how.
    enum Cooperation: Sendable {
        /// No `musig2` in its offers (the library default): clients never ask.
        case off
        case on
        /// Offers `musig2` and misbehaves when asked (`CoopFault`).
        case fault(CoopFault)
    }

    struct Process: Sendable {
        let engine: ProviderEngine
        let disk: SQLiteSwapStore
        /// What the engine writes through (the disk, or a wrapper that dies with the node).
        let store: any SwapStore
        let wallet: Wallet
    }

    let hub: HubFixture
    let identity: NodeIdentity
    let storePath: String
    let lnd: LNDRESTClient
    let follower: ChainFollower
    let followerTask: Task<Void, Never>
    let server: PeerServer
    let listener: PeerListener
    /// The provider's wall clock: it stands still unless a test moves it.
    let clock: ClientTestClock
    let log = NodeLog()
    let cooperation: Cooperation
    private let slot: EngineSlot
    private let process = Mutex<Process?>(nil)

    private init(hub: HubFixture, identity: NodeIdentity, storePath: String, lnd: LNDRESTClient,
                 follower: ChainFollower, followerTask: Task<Void, Never>, slot: EngineSlot, server: PeerServer,
                 listener: PeerListener, clock: ClientTestClock, cooperation: Cooperation) {
        self.slot = slot
        self.cooperation = cooperation
        self.clock = clock
        self.hub = hub
        self.identity = identity
        self.storePath = storePath
        self.lnd = lnd
        self.follower = follower
        self.followerTask = followerTask
        self.server = server
        self.listener = listener
    }

    /// A provider whose wallet holds `matureCoins` spendable coinbases (and 100 immature
    /// ones), listening on 127.0.0.1, engine started.
    static func start(hub: HubFixture, lightningNode: String, storePath: String, matureCoins: Int = 10,
                      cooperation: Cooperation = .off,
                      store wrap: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 }) async throws -> SwapProviderNode {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: seed))
        let funding = try makeWallet(hub)
        try hub.mine(100 + matureCoins, to: await funding.newAddress().scriptPubKey)
        let lnd = try await hub.lndClient(lightningNode)
        let follower = ChainFollower(backend: hub.backend, sleeper: hub.loop.sleeper,
                                     configuration: ChainFollower.Configuration(pollIntervalMilliseconds: 20))
        let followerTask = Task { await follower.run() }
        // The server answers through whichever engine runs now (none while restarting).
        let clock = ClientTestClock(HubFixture.startTime)
        let slot = EngineSlot(clock: clock)
        let server = PeerServer(identity: identity, sleeper: hub.loop.sleeper, handlers: PeerHandlers(
            onRequest: { request, peer in
                slot.saw(peer)
                slot.delayIfSwapRequest(request)
                guard let handle = slot.engine?.handlers.onRequest else {
                    let id = (try? SwapMessage(bytes: request))?.requestID ?? "unknown"
                    return Reject(requestID: id, code: .internal, reason: "the provider is starting").encoded
                }
                return slot.transformReply(await handle(request, peer))
            },
            onPush: { message, peer in await slot.engine?.handlers.onPush?(message, peer) }))
        let listener = try await PeerListener.start(server: server, loop: hub.loop)
        let node = SwapProviderNode(hub: hub, identity: identity, storePath: storePath, lnd: lnd, follower: follower,
                                    followerTask: followerTask, slot: slot, server: server, listener: listener,
                                    clock: clock, cooperation: cooperation)
        try await node.launch(store: wrap)
        return node
    }

    /// The contact a client saves for this node.
    var contact: Offers.Contact {
        Offers.Contact(pubky: identity.pubky, host: "127.0.0.1", port: UInt16(listener.port), name: "provider")
    }

    var engine: ProviderEngine { process.withLock { $0! }.engine }
    /// The database file as the engine last opened it.
    var disk: SQLiteSwapStore { process.withLock { $0! }.disk }
    var store: any SwapStore { process.withLock { $0! }.store }
    var wallet: Wallet { process.withLock { $0! }.wallet }

    /// Opens the store file, builds wallet, desk and engine, starts the engine (it resumes
    /// every unfinished swap), then serves through it.
    private func launch(store wrap: @Sendable (SQLiteSwapStore) -> any SwapStore) async throws {
        let disk = try SQLiteSwapStore.open(path: storePath)
        let store = wrap(disk)
        let wallet = try Self.makeWallet(hub)
        _ = try await wallet.sync()
        var coopFault: CoopFault?
        var features = [OfferFeature.preimagePush]
        switch cooperation {
        case .off: break
        case .on: features.append(OfferFeature.musig2)
        case .fault(let fault):
            features.append(OfferFeature.musig2)
            coopFault = fault
        }
        let terms = ProviderTerms(network: .regtest, htlcTimeoutBlocks: Self.htlcTimeoutBlocks, extraFeatures: features)
        let estimator = FeeEstimator(backend: hub.backend)
        let desk = ProviderDesk(identity: identity, terms: terms, clock: clock) {
            // Liquidity is what the wallet can spend now; the rate is the lock's estimate.
            let rate = (try? await estimator.feeRate(targetBlocks: 2)) ?? ProviderConfiguration.oneSatPerVByte
            return ProviderState(liquiditySat: await wallet.balance().confirmed, feeRate: rate)
        }
        let dependencies = ProviderDependencies(store: store, desk: desk, lightning: lnd, chain: hub.backend,
                                                feeEstimator: estimator, wallet: wallet, follower: follower,
                                                keyChain: try SwapKeyChain(seed: Self.seed, network: .regtest), clock: clock)
        let log = self.log
        let engine = ProviderEngine(dependencies: dependencies,
                                    configuration: ProviderConfiguration(network: .regtest, coopFault: coopFault),
                                    push: server.providerPush, log: ProviderLog { log.append("provider: \($0)") })
        process.withLock { $0 = Process(engine: engine, disk: disk, store: store, wallet: wallet) }
        try await engine.start()
        slot.set(engine)
    }

    /// Kills the running process: the engine stops where it is, its connections drop, the
    /// database connection closes. Nothing is tidied up: what is on disk stays.
    func kill() async {
        guard let running = process.withLock({ $0 }) else { return }
        slot.set(nil)
        await running.engine.shutdown()
        for peer in slot.peers {
            for connection in await server.connections(from: peer) { await connection.close() }
        }
        await running.disk.close()
        process.withLock { $0 = nil }
    }

    /// A new process on the same data directory and port.
    func restart(store wrap: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 }) async throws {
        await kill()
        try await launch(store: wrap)
    }

    /// Makes every SwapRequest arrive `seconds` later on the provider's clock than its
    /// quote (as a client that commits late would), so quotes can expire in between.
    func delaySwapRequests(bySeconds seconds: UInt64) { slot.setSwapRequestDelay(seconds) }

    /// Rewrites every reply the provider sends (a test of a provider whose answers are wrong).
    func rewriteReplies(_ rewrite: (@Sendable ([UInt8]) -> [UInt8])?) { slot.setReplyRewrite(rewrite) }

    /// The last event kind of a swap, read from the database file.
    func lastKind(_ swapID: String) async throws -> String? { try await disk.lastEvent(of: swapID)?.kind }

    func kinds(_ swapID: String) async throws -> [String] { try await disk.events(of: swapID).map(\.kind) }

    /// The lock recorded for a swap (in its last event that has one).
    func recordedLock(_ swapID: String) async throws -> ProviderLock? {
        try await disk.events(of: swapID).reversed().lazy.compactMap { try? ProviderSwapState(event: $0).lock }.first
    }

    /// The wallet's total (confirmed, unconfirmed and immature) after a sync.
    func chainBalance() async throws -> Int64 {
        let wallet = self.wallet
        _ = try await wallet.sync()
        return await wallet.balance().total
    }

    func shutDown() async {
        await kill()
        await listener.close()
        followerTask.cancel()
        await follower.finish()
        await lnd.shutDown()
    }

    private static func makeWallet(_ hub: HubFixture) throws -> Wallet {
        try Wallet(seed: seed, configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0), backend: hub.backend)
    }
}

/// The provider engine a node's `PeerServer` hands its requests to.
final class EngineSlot: Sendable {
    private let current = Mutex<ProviderEngine?>(nil)
    private let seen = Mutex<Set<Pubky>>([])
    private let swapRequestDelay = Mutex<UInt64>(0)
    private let replyRewrite = Mutex<(@Sendable ([UInt8]) -> [UInt8])?>(nil)
    private let clock: ClientTestClock

    init(clock: ClientTestClock) { self.clock = clock }

    func setSwapRequestDelay(_ seconds: UInt64) { swapRequestDelay.withLock { $0 = seconds } }

    func setReplyRewrite(_ rewrite: (@Sendable ([UInt8]) -> [UInt8])?) { replyRewrite.withLock { $0 = rewrite } }

    func transformReply(_ reply: [UInt8]) -> [UInt8] {
        guard let rewrite = replyRewrite.withLock({ $0 }) else { return reply }
        return rewrite(reply)
    }

    /// Moves the clock on by the set delay when `request` is a SwapRequest.
    func delayIfSwapRequest(_ request: [UInt8]) {
        let delay = swapRequestDelay.withLock { $0 }
        guard delay > 0, case .swapRequest? = try? SwapMessage(bytes: request) else { return }
        clock.advance(by: delay)
    }

    var engine: ProviderEngine? { current.withLock { $0 } }
    func set(_ engine: ProviderEngine?) { current.withLock { $0 = engine } }
    /// Peers that have asked something (whose connections a kill drops).
    var peers: Set<Pubky> { seen.withLock { $0 } }
    func saw(_ peer: Pubky) { _ = seen.withLock { $0.insert(peer) } }
}

/// A node's log lines, kept for failure messages.
final class NodeLog: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
