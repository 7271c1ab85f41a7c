import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Synchronization
import Transport

/// A paying node on the hub, assembled as the daemon assembles one: the client engine over
/// a SQLite store file, its Lightning node over LND REST, a chain follower running on its
/// own, providers reached over TCP with `PeerDialer.clientConnector`, and a `Router` that
/// probes contacts over TCP. Its own wallet holds no coins: it is only a swap-out
/// destination. `restart` is a new process on the same database file.
final class SwapClientNode: Sendable {
    static let seed = [UInt8](repeating: 0x71, count: 32)

    struct Process: Sendable {
        let engine: ClientEngine
        let disk: SQLiteSwapStore
        let store: any SwapStore
    }

    let hub: HubFixture
    let identity: NodeIdentity
    let storePath: String
    let lnd: LNDRESTClient
    let savings: Wallet
    let follower: ChainFollower
    let followerTask: Task<Void, Never>
    let configuration: ClientEngineConfiguration
    let router: Router
    let clock = ProviderTestClock()
    let progress = ProgressTimeline()
    let log = NodeLog()
    private let process = Mutex<Process?>(nil)

    private init(hub: HubFixture, identity: NodeIdentity, storePath: String, lnd: LNDRESTClient, savings: Wallet,
                 follower: ChainFollower, followerTask: Task<Void, Never>, configuration: ClientEngineConfiguration) {
        self.hub = hub
        self.identity = identity
        self.storePath = storePath
        self.lnd = lnd
        self.savings = savings
        self.follower = follower
        self.followerTask = followerTask
        self.configuration = configuration
        let loop = hub.loop
        let prober = PeerOfferProber(identity: identity, network: .regtest, sleeper: loop.sleeper) { contact in
            try await TCPConnection.connect(host: contact.host, port: Int(contact.port), loop: loop)
        }
        router = Router(settings: Router.Settings(network: .regtest, perContactTimeoutMilliseconds: 2_000,
                                                  overallDeadlineMilliseconds: 5_000),
                        prober: prober, sleeper: loop.sleeper, clock: clock)
    }

    /// Test timers: give up after a minute, wait briefly for the claim's confirmation,
    /// redial a provider quickly.
    static func testConfiguration(confirmationWaitMilliseconds: UInt64 = 200) -> ClientEngineConfiguration {
        ClientEngineConfiguration(network: .regtest, giveUpSeconds: 60,
                                  confirmationWaitMilliseconds: confirmationWaitMilliseconds,
                                  requestTimeoutMilliseconds: 5_000, reconnectInitialMilliseconds: 50,
                                  reconnectMaximumMilliseconds: 400)
    }

    static func start(hub: HubFixture, lightningNode: String, storePath: String,
                      configuration: ClientEngineConfiguration = testConfiguration(),
                      store wrap: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 }) async throws -> SwapClientNode {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x72, count: 32)))
        let savings = try Wallet(seed: [UInt8](repeating: 0x73, count: 32),
                                 configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0),
                                 backend: hub.backend)
        let lnd = try await hub.lndClient(lightningNode)
        let follower = ChainFollower(backend: hub.backend, sleeper: hub.loop.sleeper,
                                     configuration: ChainFollower.Configuration(pollIntervalMilliseconds: 20))
        let followerTask = Task { await follower.run() }
        let node = SwapClientNode(hub: hub, identity: identity, storePath: storePath, lnd: lnd, savings: savings,
                                  follower: follower, followerTask: followerTask, configuration: configuration)
        try node.launch(store: wrap)
        return node
    }

    var engine: ClientEngine { process.withLock { $0! }.engine }
    var disk: SQLiteSwapStore { process.withLock { $0! }.disk }
    var store: any SwapStore { process.withLock { $0! }.store }

    private func launch(store wrap: @Sendable (SQLiteSwapStore) -> any SwapStore) throws {
        let disk = try SQLiteSwapStore.open(path: storePath)
        let store = wrap(disk)
        let log = self.log
        let engine = try ClientEngine(configuration: configuration, seed: Self.seed, store: store, lightning: lnd,
                                      chain: hub.backend, feeEstimator: FeeEstimator(backend: hub.backend),
                                      follower: follower,
                                      connector: PeerDialer(identity: identity, loop: hub.loop).clientConnector,
                                      clock: clock, sleeper: hub.loop.sleeper, log: { log.append("client: \($0)") })
        let progress = self.progress
        Task {
            for await event in engine.progress { progress.append(event) }
        }
        process.withLock { $0 = Process(engine: engine, disk: disk, store: store) }
    }

    /// Kills the running process: its swaps stop where they are, the database closes.
    func kill() async {
        guard let running = process.withLock({ $0 }) else { return }
        await running.engine.shutDown()
        await running.disk.close()
        process.withLock { $0 = nil }
    }

    /// A new process on the same database file, resuming every unfinished swap.
    @discardableResult
    func restart(store wrap: @Sendable (SQLiteSwapStore) -> any SwapStore = { $0 }) async throws -> [String] {
        await kill()
        try launch(store: wrap)
        return try await engine.recover()
    }

    /// Asks a contact where it takes payments (EndpointsRequest over TCP) and returns its
    /// on-chain address on regtest.
    func onchainEndpoint(of contact: Offers.Contact) async throws -> Address {
        let connection = try await PeerDialer(identity: identity, loop: hub.loop)
            .dial(contact.pubky, host: contact.host, port: Int(contact.port))
        let request = EndpointsRequest(requestID: RandomID.make())
        let reply = try await connection.request(request.encoded, id: request.requestID, timeoutMilliseconds: 5_000)
        await connection.close()
        guard case .endpoints(let endpoints) = try SwapMessage(bytes: reply),
              let endpoint = endpoints.endpoints.first(where: { $0.type == Endpoint.onchainType && $0.network == "regtest" }) else {
            throw NodeTestFailure("\(contact) named no regtest on-chain endpoint")
        }
        return try Address(endpoint.address, network: .regtest)
    }

    /// The router's decision for paying `amountSat` to `destination`, probing `contacts`.
    func route(amountSat: Int64, to destination: Address, contacts: [Offers.Contact]) async throws -> RouteDecision {
        let rate = try await FeeEstimator(backend: hub.backend).feeRate(targetBlocks: configuration.claimFeeTargetBlocks)
        return await router.route(RouteSelector(amountSat: amountSat, destination: try DestinationType(address: destination),
                                                claimFeeRate: rate, routingFee: configuration.routingFee),
                                  contacts: contacts)
    }

    func lastKind(_ swapID: String) async throws -> String? { try await disk.lastEvent(of: swapID)?.kind }

    func kinds(_ swapID: String) async throws -> [String] { try await disk.events(of: swapID).map(\.kind) }

    /// The state stored in a swap's last event.
    func storedState(_ swapID: String) async throws -> ClientSwapState? {
        guard let event = try await disk.lastEvent(of: swapID) else { return nil }
        return try ClientSwapState(kind: event.kind, data: event.data)
    }

    /// The secrets of a stored swap, derived again from the seed and its index.
    func secrets(of swapID: String) async throws -> SwapSecrets {
        guard let record = try await disk.swap(swapID) else { throw NodeTestFailure("no swap \(swapID)") }
        return try SwapKeyChain(seed: Self.seed, network: .regtest).secrets(index: record.swapIndex, scheme: record.keyScheme)
    }

    func shutDown() async {
        await kill()
        followerTask.cancel()
        await follower.finish()
        await lnd.shutDown()
    }
}

/// Progress events with the monotonic instant each arrived, for latency figures.
final class ProgressTimeline: Sendable {
    struct Entry: Sendable {
        let at: ContinuousClock.Instant
        let event: ClientProgress
    }

    private let entries = Mutex<[Entry]>([])
    func append(_ event: ClientProgress) { entries.withLock { $0.append(Entry(at: .now, event: event)) } }
    var all: [Entry] { entries.withLock { $0 } }

    /// When `swapID` first reached `phase`.
    func first(_ phase: ClientSwapPhase, of swapID: String) -> ContinuousClock.Instant? {
        all.first { $0.event.swapID == swapID && $0.event.stage == .phase(phase) }?.at
    }
}

struct NodeTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
