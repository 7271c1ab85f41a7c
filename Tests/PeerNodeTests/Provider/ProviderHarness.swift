import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Synchronization
import Transport
import XCTest

/// A provider node on the hub (its swaps in a SQLite file), and a client that talks to it in-process: the provider's
/// engine with its store, wallet (funded from coinbases), desk, chain follower and LND
/// client; the client's identity, seed-derived swap secrets and a paying LND node.
///
/// The follower is not run in the background: `waitFor` polls it, so a test decides when
/// the engine sees blocks (and can keep it from seeing them).
final class ProviderHarness {
    static let providerSeed = [UInt8](repeating: 0x5a, count: 32)
    static let clientSeed = [UInt8](repeating: 0xc1, count: 32)
    static let htlcTimeoutBlocks = 40
    static let payerBalanceMsat: UInt64 = 50_000_000_000

    let hub: HubFixture
    /// The provider's database file: a restart opens it again.
    let storePath: String
    private(set) var store: SQLiteSwapStore
    let providerLND: LNDRESTClient
    let payerLND: LNDRESTClient
    let identity: NodeIdentity
    let client: NodeIdentity
    let clientKeys: SwapKeyChain
    let follower: ChainFollower
    let pushes: ProviderPushRecorder
    let clock = ProviderTestClock()
    private(set) var wallet: Wallet
    private(set) var desk: ProviderDesk
    private(set) var engine: ProviderEngine

    private init(hub: HubFixture, storePath: String, store: SQLiteSwapStore, providerLND: LNDRESTClient, payerLND: LNDRESTClient,
                 identity: NodeIdentity, client: NodeIdentity, follower: ChainFollower, wallet: Wallet, desk: ProviderDesk,
                 engine: ProviderEngine, pushes: ProviderPushRecorder) throws {
        self.pushes = pushes
        self.hub = hub
        self.storePath = storePath
        self.store = store
        self.providerLND = providerLND
        self.payerLND = payerLND
        self.identity = identity
        self.client = client
        clientKeys = try SwapKeyChain(seed: Self.clientSeed, network: .regtest)
        self.follower = follower
        self.wallet = wallet
        self.desk = desk
        self.engine = engine
    }

    /// Hub, funded provider wallet (ten mature coinbases), started engine.
    static func start(storePath: String) async throws -> ProviderHarness {
        let store = try SQLiteSwapStore.open(path: storePath)
        let hub = try await HubFixture.start(lightningNodes: [("provider", 0), ("payer", payerBalanceMsat)])
        let providerLND = try await hub.lndClient("provider")
        let payerLND = try await hub.lndClient("payer")
        let identity = NodeIdentity(seed: try NodeSeed(bytes: providerSeed))
        let client = NodeIdentity(seed: try NodeSeed(bytes: clientSeed))
        let wallet = try makeWallet(hub)
        try hub.mine(110, to: await wallet.newAddress().scriptPubKey)
        try await wallet.sync()
        let follower = ChainFollower(backend: hub.backend, sleeper: hub.loop.sleeper)
        try await follower.poll()
        let clock = ProviderTestClock()
        let desk = makeDesk(identity: identity, clock: clock)
        let pushes = ProviderPushRecorder()
        let engine = makeEngine(hub: hub, store: store, lightning: providerLND, wallet: wallet, desk: desk,
                                follower: follower, clock: clock, pushes: pushes)
        let harness = try ProviderHarness(hub: hub, storePath: storePath, store: store, providerLND: providerLND, payerLND: payerLND,
                                          identity: identity, client: client, follower: follower, wallet: wallet,
                                          desk: desk, engine: engine, pushes: pushes)
        try await engine.start()
        return harness
    }

    /// A restart: the old engine stops (as if killed) and its database is closed; a new
    /// wallet, desk and engine over the database file opened again start and recover.
    func restart() async throws {
        await engine.shutdown()
        await store.close()
        store = try SQLiteSwapStore.open(path: storePath)
        wallet = try Self.makeWallet(hub)
        desk = Self.makeDesk(identity: identity, clock: clock)
        engine = Self.makeEngine(hub: hub, store: store, lightning: providerLND, wallet: wallet, desk: desk,
                                 follower: follower, clock: clock, pushes: pushes)
        try await engine.start()
    }

    func shutDown() async {
        await engine.shutdown()
        await store.close()
        await follower.finish()
        await hub.shutDown([providerLND, payerLND])
    }

    private static func makeWallet(_ hub: HubFixture) throws -> Wallet {
        try Wallet(seed: providerSeed, configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0),
                   backend: hub.backend)
    }

    private static func makeDesk(identity: NodeIdentity, clock: ProviderTestClock) -> ProviderDesk {
        let terms = ProviderTerms(network: .regtest, htlcTimeoutBlocks: htlcTimeoutBlocks)
        let rate = try! FeeRate(satPerKvB: 2_000)
        return ProviderDesk(identity: identity, terms: terms, clock: clock) {
            ProviderState(liquiditySat: 100_000_000, feeRate: rate)
        }
    }

    private static func makeEngine(hub: HubFixture, store: any SwapStore, lightning: LNDRESTClient, wallet: Wallet,
                                   desk: ProviderDesk, follower: ChainFollower, clock: ProviderTestClock,
                                   pushes: ProviderPushRecorder) -> ProviderEngine {
        let dependencies = ProviderDependencies(store: store, desk: desk, lightning: lightning, chain: hub.backend,
                                                feeEstimator: FeeEstimator(backend: hub.backend), wallet: wallet,
                                                follower: follower, keyChain: try! SwapKeyChain(seed: providerSeed, network: .regtest),
                                                clock: clock)
        return ProviderEngine(dependencies: dependencies, configuration: ProviderConfiguration(network: .regtest),
                              push: pushes.push)
    }

    // MARK: the client's side

    /// An offer, then a quote for `amount` sat, as the client asks them.
    func quote(amount: Int64) async throws -> Quote {
        let offerReply = await desk.answer(OfferRequest(requestID: "offer-\(amount)", network: "regtest").encoded,
                                           from: client.pubky)
        guard case .offer(let offer)? = try offerReply.map({ try SwapMessage(bytes: $0) }) else {
            throw ProviderTestFailure("no offer")
        }
        let quoteReply = await desk.answer(QuoteRequest(requestID: "quote-\(amount)", offerID: offer.body.offerID,
                                                        amountSat: amount).encoded, from: client.pubky)
        guard case .quote(let quote)? = try quoteReply.map({ try SwapMessage(bytes: $0) }) else {
            throw ProviderTestFailure("no quote")
        }
        return quote.body
    }

    func secrets(_ index: UInt32) throws -> SwapSecrets { try clientKeys.secrets(index: index, scheme: .current) }

    func swapRequest(for quote: Quote, secrets: SwapSecrets, requestID: String = "swap-1",
                     scriptType: ContractType = .taprootBoltz) -> SwapRequest {
        SwapRequest(requestID: requestID, quoteID: quote.quoteID, paymentHash: secrets.paymentHash,
                    claimPublicKey: secrets.claimKey.publicKey, scriptType: scriptType)
    }

    /// Sends a request to the engine as the client and decodes the reply.
    func send(_ request: some SwapMessageBody) async throws -> SwapMessage {
        guard let reply = await engine.answer(request.encoded, from: client.pubky) else {
            throw ProviderTestFailure("the engine did not answer")
        }
        return try SwapMessage(bytes: reply)
    }

    func accept(_ request: SwapRequest) async throws -> Signed<SwapAccept> {
        let reply = try await send(request)
        guard case .swapAccept(let accept) = reply else { throw ProviderTestFailure("expected an accept, got \(reply)") }
        try accept.verify(by: identity.pubky)
        return accept
    }

    /// The contract as the client computes it from the accept.
    func contract(of accept: SwapAccept) throws -> SwapContract {
        let terms = try SwapTerms(network: .regtest, paymentHash: accept.paymentHash, claimPublicKey: accept.claimPublicKey,
                                  refundPublicKey: accept.refundPublicKey, timeoutHeight: accept.timeoutHeight)
        let contract = try SwapContract(type: accept.scriptType, terms: terms)
        try contract.check(advertisedAddress: accept.htlcAddress)
        return contract
    }

    /// Pays the invoice from the payer node; the task ends with the final status.
    func pay(_ invoice: String) -> Task<PaymentUpdate.Status?, any Error> {
        let stream = payerLND.payInvoice(paymentRequest: invoice, feeLimitSat: 1_000, cltvLimit: 0, timeoutSeconds: 60)
        return Task {
            var last: PaymentUpdate.Status?
            for try await update in stream { last = update.status }
            return last
        }
    }

    /// A quote, a swap request and its accept, and the payment under way.
    func startSwap(amount: Int64 = 100_000, index: UInt32 = 0, scriptType: ContractType = .taprootBoltz) async throws
        -> (accept: SwapAccept, secrets: SwapSecrets, payment: Task<PaymentUpdate.Status?, any Error>) {
        let secrets = try secrets(index)
        let quote = try await quote(amount: amount)
        let accept = try await accept(swapRequest(for: quote, secrets: secrets, scriptType: scriptType)).body
        return (accept, secrets, pay(accept.invoice))
    }

    /// A swap started with the defaults and waited for until its lock is broadcast, and the
    /// lock it recorded.
    func startLockedSwap(file: StaticString = #filePath, line: UInt = #line) async throws
        -> (accept: SwapAccept, secrets: SwapSecrets, payment: Task<PaymentUpdate.Status?, any Error>, lock: ProviderLock) {
        let (accept, secrets, payment) = try await startSwap()
        try await waitForState(.lockBroadcast, of: accept.swapID, file: file, line: line)
        let lockFound = try await recordedLock(accept.swapID)
        return (accept, secrets, payment, try XCTUnwrap(lockFound, file: file, line: line))
    }

    /// The client's claim of `lock` (the real claim code) to nobody's address, broadcast
    /// through the kernel-verifying backend.
    func broadcastClaim(of accept: SwapAccept, lock: ProviderLock, secrets: SwapSecrets) async throws {
        let claim = try ClaimBuilder().build(
            ClaimRequest(contract: try contract(of: accept), lock: lock.output, destination: HubFixture.elsewhere,
                         amount: accept.amountSat - 1_000, purpose: .payContact, feeRate: try FeeRate(satPerKvB: 2_000),
                         blocksLeft: Int(accept.timeoutHeight) - hub.height),
            claimKey: secrets.claimKey, preimage: secrets.preimage)
        _ = try await hub.backend.broadcast(claim.transaction)
    }

    // MARK: waiting

    /// Waits until `condition` holds, polling the chain follower each round unless told not to.
    func waitFor(_ what: String, seconds: Int = 30, pollingChain: Bool = true,
                 file: StaticString = #filePath, line: UInt = #line, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if pollingChain { try? await follower.poll() }
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(40))
        }
        XCTFail("timed out waiting for \(what)", file: file, line: line)
        throw ProviderTestFailure("timed out waiting for \(what)")
    }

    func lastKind(_ swapID: String) async throws -> String? { try await store.lastEvent(of: swapID)?.kind }

    func kinds(_ swapID: String) async throws -> [String] { try await store.events(of: swapID).map(\.kind) }

    func waitForState(_ kind: ProviderSwapState.Kind, of swapID: String, pollingChain: Bool = true,
                      file: StaticString = #filePath, line: UInt = #line) async throws {
        try await waitFor("\(swapID) to reach \(kind.rawValue)", pollingChain: pollingChain, file: file, line: line) {
            try await lastKind(swapID) == kind.rawValue
        }
    }

    /// Waits until the client was last told `status` (pushes follow the stored state).
    func waitForPush(_ status: SwapStatus, of swapID: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await waitFor("a \(status.rawValue) push for \(swapID)", pollingChain: false, file: file, line: line) {
            pushes.updates(of: swapID).last?.status == status
        }
    }

    /// The lock recorded for a swap (in its last event that has one).
    func recordedLock(_ swapID: String) async throws -> ProviderLock? {
        try await store.events(of: swapID).reversed().lazy.compactMap { try? ProviderSwapState(event: $0).lock }.first
    }

    /// Mines blocks one at a time, letting the engine see each.
    func mine(_ count: Int) async throws {
        for _ in 0..<count {
            try hub.mine(1)
            try await follower.poll()
        }
    }
}

/// Pushes the engine sent, in order.
final class ProviderPushRecorder: Sendable {
    private let sent = Mutex<[(client: Pubky, message: [UInt8])]>([])

    var push: ProviderPush {
        { client, message in self.sent.withLock { $0.append((client, message)) } }
    }

    var updates: [SwapStatusUpdate] {
        sent.withLock { $0 }.compactMap { try? SwapStatusUpdate(bytes: $0.message) }
    }

    func updates(of swapID: String) -> [SwapStatusUpdate] { updates.filter { $0.swapID == swapID } }
}

/// A wall clock that stands still (quotes stay valid through the test).
struct ProviderTestClock: UnixClock {
    var nowUnix: UInt64 { HubFixture.startTime }
}

struct ProviderTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
