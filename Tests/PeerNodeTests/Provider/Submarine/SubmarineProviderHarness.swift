import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// A submarine provider on the hub (its swaps in a SQLite file) and a client played by
/// hand: the provider's `SubmarineProviderEngine` with its store, wallet (claim
/// destinations), desk, chain follower and LND client (funded on Lightning); a payee node
/// whose real hub invoices the provider pays; and the client's own wallet (funded from
/// coinbases) that locks into the accepted contract.
///
/// The follower is polled by the test (`waitFor`, `mine`), so a test decides when the
/// engine sees blocks.
final class SubmarineProviderHarness {
    static let providerSeed = [UInt8](repeating: 0x5b, count: 32)
    static let clientSeed = [UInt8](repeating: 0xc2, count: 32)
    /// Long enough for the hub's route (its routing node adds 40 blocks of CLTV delta, the
    /// route allowance here): at 1 confirmation, 12 blocks of wait after it, the limit is
    /// 96 − 13 − 12 = 71 ≥ 18 + 3 + 40 (the payee's invoices state 18).
    static let timeoutBlocks = 96
    static let routeCLTVBlocks = 40
    static let providerLightningMsat: UInt64 = 5_000_000_000

    let hub: HubFixture
    let storePath: String
    private(set) var store: SQLiteSwapStore
    let providerLND: LNDRESTClient
    let payeeLND: LNDRESTClient
    let identity: NodeIdentity
    let client: NodeIdentity
    let clientKeys: SwapKeyChain
    let clientWallet: Wallet
    let follower: ChainFollower
    let clock = ProviderTestClock()
    let confirmations: Int
    private(set) var wallet: Wallet
    private(set) var desk: ProviderDesk
    private(set) var engine: SubmarineProviderEngine
    private(set) var liquidity: SubmarineLiquidity

    private init(hub: HubFixture, storePath: String, store: SQLiteSwapStore, providerLND: LNDRESTClient,
                 payeeLND: LNDRESTClient, clientWallet: Wallet, follower: ChainFollower, wallet: Wallet,
                 confirmations: Int) throws {
        self.hub = hub
        self.storePath = storePath
        self.store = store
        self.providerLND = providerLND
        self.payeeLND = payeeLND
        identity = NodeIdentity(seed: try NodeSeed(bytes: Self.providerSeed))
        client = NodeIdentity(seed: try NodeSeed(bytes: Self.clientSeed))
        clientKeys = try SwapKeyChain(seed: Self.clientSeed, network: .regtest)
        self.clientWallet = clientWallet
        self.follower = follower
        self.wallet = wallet
        self.confirmations = confirmations
        liquidity = SubmarineLiquidity()
        desk = Self.makeDesk(identity: identity, clock: clock, confirmations: confirmations, lightning: providerLND,
                             liquidity: liquidity)
        engine = Self.makeEngine(hub: hub, store: store, lightning: providerLND, wallet: wallet, desk: desk,
                                 follower: follower, clock: clock, liquidity: liquidity)
    }

    /// Hub, Lightning-funded provider, coinbase-funded client wallet, started engine.
    static func start(storePath: String, confirmations: Int = 1) async throws -> SubmarineProviderHarness {
        let store = try SQLiteSwapStore.open(path: storePath)
        let hub = try await HubFixture.start(lightningNodes: [("provider", providerLightningMsat), ("payee", 0)])
        let providerLND = try await hub.lndClient("provider")
        let payeeLND = try await hub.lndClient("payee")
        let clientWallet = try hub.wallet(seed: 0xc2)
        try hub.mine(110, to: await clientWallet.newAddress().scriptPubKey)
        try await clientWallet.sync()
        let wallet = try Wallet(seed: providerSeed, configuration: WalletConfiguration(network: .regtest, birthdayHeight: 0),
                                backend: hub.backend)
        let follower = ChainFollower(backend: hub.backend, sleeper: hub.loop.sleeper)
        try await follower.poll()
        let harness = try SubmarineProviderHarness(hub: hub, storePath: storePath, store: store, providerLND: providerLND,
                                                   payeeLND: payeeLND, clientWallet: clientWallet, follower: follower,
                                                   wallet: wallet, confirmations: confirmations)
        try await harness.engine.start()
        return harness
    }

    /// A restart: the engine stops (as if killed), the database closes; a new engine over
    /// the reopened file (behind `wrapping`, if given) starts and recovers.
    func restart(wrapping: ((any SwapStore) -> any SwapStore)? = nil) async throws {
        await engine.shutdown()
        await store.close()
        store = try SQLiteSwapStore.open(path: storePath)
        liquidity = SubmarineLiquidity()
        desk = Self.makeDesk(identity: identity, clock: clock, confirmations: confirmations, lightning: providerLND,
                             liquidity: liquidity)
        engine = Self.makeEngine(hub: hub, store: wrapping?(store) ?? store, lightning: providerLND, wallet: wallet,
                                 desk: desk, follower: follower, clock: clock, liquidity: liquidity)
        try await engine.start()
    }

    func shutDown() async {
        await engine.shutdown()
        await store.close()
        await follower.finish()
        await hub.shutDown([providerLND, payeeLND])
    }

    static func terms(confirmations: Int) -> ProviderTerms {
        ProviderTerms(network: .regtest, htlcTimeoutBlocks: timeoutBlocks,
                      submarine: try! SubmarineTerms(requiredConfirmations: confirmations, htlcTimeoutBlocks: timeoutBlocks,
                                                     routeCLTVBlocks: routeCLTVBlocks))
    }

    private static func makeDesk(identity: NodeIdentity, clock: ProviderTestClock, confirmations: Int,
                                 lightning: LNDRESTClient, liquidity: SubmarineLiquidity) -> ProviderDesk {
        let rate = try! FeeRate(satPerKvB: 2_000)
        return ProviderDesk(identity: identity, terms: terms(confirmations: confirmations), clock: clock) {
            // As the daemon's desk: what LND can send now, less what accepted swaps hold.
            let spendable = (try? await lightning.spendableBalance()).map { Int64($0 / 1_000) }
            return ProviderState(liquiditySat: 100_000_000, feeRate: rate,
                                 lightningOutboundSat: spendable.map { max(0, $0 - liquidity.promisedSat) })
        }
    }

    private static func makeEngine(hub: HubFixture, store: any SwapStore, lightning: LNDRESTClient, wallet: Wallet,
                                   desk: ProviderDesk, follower: ChainFollower, clock: ProviderTestClock,
                                   liquidity: SubmarineLiquidity) -> SubmarineProviderEngine {
        let dependencies = ProviderDependencies(store: store, desk: desk, lightning: lightning, chain: hub.backend,
                                                feeEstimator: FeeEstimator(backend: hub.backend), wallet: wallet,
                                                follower: follower,
                                                keyChain: try! SwapKeyChain(seed: providerSeed, network: .regtest),
                                                clock: clock)
        return SubmarineProviderEngine(dependencies: dependencies,
                                       configuration: SubmarineProviderConfiguration(network: .regtest),
                                       liquidity: liquidity)
    }

    // MARK: the client's side

    /// The payee's invoice (a real hub invoice of another node).
    func payeeInvoice(amountSat: Int64, expirySeconds: UInt64 = 3_600, finalCLTV: UInt64 = 18) async throws -> CreatedInvoice {
        try await payeeLND.addInvoice(amountMsat: UInt64(amountSat) * 1_000, memo: "erin", expirySeconds: expirySeconds,
                                      cltvExpiry: finalCLTV)
    }

    /// An offer, then an onchain_to_ln quote for `amount` sat and `paymentHash`.
    func quote(amount: Int64, paymentHash: [UInt8]?, id: String = "1") async throws -> Quote {
        let offerReply = await desk.answer(OfferRequest(requestID: "offer-\(id)", network: "regtest").encoded, from: client.pubky)
        guard case .offer(let offer)? = try offerReply.map({ try SwapMessage(bytes: $0) }) else {
            throw ProviderTestFailure("no offer")
        }
        let reply = await desk.answer(QuoteRequest(requestID: "quote-\(id)", offerID: offer.body.offerID,
                                                   direction: .onchainToLightning, amountSat: amount,
                                                   paymentHash: paymentHash).encoded, from: client.pubky)
        guard case .quote(let quote)? = try reply.map({ try SwapMessage(bytes: $0) }) else {
            throw ProviderTestFailure("no quote: \(String(describing: reply.flatMap { try? SwapMessage(bytes: $0) }))")
        }
        return quote.body
    }

    func request(quote: Quote, invoice: String, index: UInt32 = 0, requestID: String = "swap-1") throws -> SubmarineSwapRequest {
        SubmarineSwapRequest(requestID: requestID, quoteID: quote.quoteID, invoice: invoice,
                             refundPublicKey: try clientKeys.secrets(index: index, scheme: .current).refundKey.publicKey)
    }

    /// Sends a request to the engine as the client and decodes the reply.
    func send(_ request: some SwapMessageBody) async throws -> SwapMessage {
        guard let reply = await engine.answer(request.encoded, from: client.pubky) else {
            throw ProviderTestFailure("the engine did not answer")
        }
        return try SwapMessage(bytes: reply)
    }

    /// The accept, checked as a client checks it (`SubmarineAcceptPolicy`): the contract.
    func accept(_ request: SubmarineSwapRequest, quote: Quote, paymentHash: [UInt8]) async throws
        -> (accept: SubmarineSwapAccept, contract: SwapContract) {
        let reply = try await send(request)
        guard case .submarineSwapAccept(let signed) = reply else { throw ProviderTestFailure("expected an accept, got \(reply)") }
        let contract = try SubmarineAcceptPolicy().check(signed, quote: quote, request: request, invoicePaymentHash: paymentHash,
                                                         provider: identity.pubky, network: .regtest,
                                                         tipHeight: UInt32(hub.height))
        return (signed.body, contract)
    }

    /// Invoice, quote, request, verified accept: a swap ready to be locked.
    func startSwap(amount: Int64 = 50_000) async throws
        -> (invoice: CreatedInvoice, quote: Quote, accept: SubmarineSwapAccept, contract: SwapContract) {
        let invoice = try await payeeInvoice(amountSat: amount)
        let quote = try await quote(amount: amount, paymentHash: invoice.paymentHash)
        let request = try request(quote: quote, invoice: invoice.paymentRequest)
        let (accept, contract) = try await accept(request, quote: quote, paymentHash: invoice.paymentHash)
        return (invoice, quote, accept, contract)
    }

    /// The client's lock: `amount` sat to the contract from the client's wallet, broadcast
    /// through the kernel-verifying backend.
    @discardableResult
    func lock(_ contract: SwapContract, amount: Int64) async throws -> Transaction {
        let funding = try await clientWallet.prepareFunding(contract: contract, amount: amount,
                                                            feeRate: try FeeRate(satPerKvB: 2_000))
        _ = try await clientWallet.publish(funding.transaction)
        return funding.transaction
    }

    // MARK: waiting

    func waitFor(_ what: String, seconds: Int = 30, file: StaticString = #filePath, line: UInt = #line,
                 _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            try? await follower.poll()
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(40))
        }
        XCTFail("timed out waiting for \(what)", file: file, line: line)
        throw ProviderTestFailure("timed out waiting for \(what)")
    }

    func lastKind(_ swapID: String) async throws -> String? { try await store.lastEvent(of: swapID)?.kind }

    func kinds(_ swapID: String) async throws -> [String] { try await store.events(of: swapID).map(\.kind) }

    func waitForState(_ kind: SubmarineProviderState.Kind, of swapID: String, seconds: Int = 30,
                      file: StaticString = #filePath, line: UInt = #line) async throws {
        try await waitFor("\(swapID) to reach \(kind.rawValue)", seconds: seconds, file: file, line: line) {
            try await lastKind(swapID) == kind.rawValue
        }
    }

    /// The state stored last for a swap.
    func storedState(_ swapID: String) async throws -> SubmarineProviderState? {
        guard let event = try await store.lastEvent(of: swapID) else { return nil }
        return try SubmarineProviderState(kind: event.kind, data: event.data)
    }

    /// Mines blocks one at a time, letting the engine see each.
    func mine(_ count: Int) async throws {
        for _ in 0..<count {
            try hub.mine(1)
            try await follower.poll()
        }
    }

    /// The provider's payment for `hash` as the hub's Lightning network keeps it.
    func providerPayment(_ hash: [UInt8]) -> SimulatedPayment? {
        try? hub.lightning.payment(node: "provider", paymentHash: hash)
    }
}

/// Forwards to `base`; once an event of `kind` is durable, throws as if the node had
/// stopped right there (the engine then runs none of the actions that event announces).
struct StoppingSwapStore: SwapStore, ForwardingKeyValueStore {
    let base: any SwapStore
    var keyValueBase: any KeyValueStore { base }
    let kind: String

    func reserveSwapIndex() async throws(StoreError) -> UInt32 { try await base.reserveSwapIndex() }
    func create(_ record: SwapRecord, firstEvent kind: String, data: JSONValue, at: Int64) async throws(StoreError) -> SwapEvent {
        try await base.create(record, firstEvent: kind, data: data, at: at)
    }
    func append(_ kind: String, data: JSONValue, isFinal: Bool, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        let event = try await base.append(kind, data: data, isFinal: isFinal, to: swapID, at: at)
        if kind == self.kind { throw .database(operation: "append", message: "the test stopped the node after \(kind)") }
        return event
    }
    func reopen(_ kind: String, data: JSONValue, reason: String, to swapID: String, at: Int64) async throws(StoreError) -> SwapEvent {
        try await base.reopen(kind, data: data, reason: reason, to: swapID, at: at)
    }
    func swap(_ id: String) async throws(StoreError) -> SwapRecord? { try await base.swap(id) }
    func events(of swapID: String) async throws(StoreError) -> [SwapEvent] { try await base.events(of: swapID) }
    func lastEvent(of swapID: String) async throws(StoreError) -> SwapEvent? { try await base.lastEvent(of: swapID) }
    func unfinishedSwaps(role: SwapRole?) async throws(StoreError) -> [SwapRecord] { try await base.unfinishedSwaps(role: role) }
    func allSwaps(limit: Int) async throws(StoreError) -> [SwapRecord] { try await base.allSwaps(limit: limit) }
}
