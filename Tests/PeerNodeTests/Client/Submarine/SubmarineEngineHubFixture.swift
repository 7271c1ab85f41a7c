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

/// One submarine client engine against a scripted provider on the in-process hub: the
/// client's wallet holds exactly `savingsSat` confirmed (sent by a funder, so no coinbase
/// matures under the test), Lightning nodes `client` (its own invoices: swap-in),
/// `provider` (pays) and `payee` (a contact's invoices).
final class SubmarineEngineHubFixture: Sendable {
    static let clientSeed = [UInt8](repeating: 0x73, count: 32)
    static let savingsSat: Int64 = 500_000

    let hub: HubFixture
    let clientLND: LNDRESTClient
    let providerLND: LNDRESTClient
    let payeeLND: LNDRESTClient
    let provider: SubmarineScriptedProvider
    let wallet: Wallet
    let clientIdentity: NodeIdentity
    let store: ClientMemorySwapStore
    let follower: ChainFollower
    let followerTask: Task<Void, Never>
    let progress = SubmarineProgressLog()

    /// `cooperates`: the provider's offer lists `musig2`. `followerPollMilliseconds`: the
    /// client's chain follower's poll (long: blocks the engine hears of only when it asks).
    init(fault: SubmarineScriptedProvider.AcceptFault = .none, cooperates: Bool = false,
         followerPollMilliseconds: UInt64 = 50) async throws {
        hub = try await HubFixture.start(lightningNodes: [("client", 1_000_000), ("provider", 5_000_000_000), ("payee", 1_000_000)],
                                       clock: { UInt64(time(nil)) })
        let funder = try hub.wallet(seed: 0x54)
        try hub.mine(110, to: await funder.newAddress().scriptPubKey)
        _ = try await funder.sync()
        wallet = try hub.wallet(seed: 0x55)
        _ = try await funder.send(to: await wallet.newAddress().address, amount: Self.savingsSat, feeRate: try FeeRate(satPerVByte: 2))
        try hub.mine(1)
        _ = try await wallet.sync()
        clientLND = try await hub.lndClient("client", subscriptionRetryMilliseconds: 200)
        providerLND = try await hub.lndClient("provider", subscriptionRetryMilliseconds: 200)
        payeeLND = try await hub.lndClient("payee", subscriptionRetryMilliseconds: 200)
        provider = try SubmarineScriptedProvider(hub: hub, lnd: providerLND, seed: 0x62, fault: fault, cooperates: cooperates)
        clientIdentity = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x74, count: 32)))
        store = ClientMemorySwapStore()
        (follower, followerTask) = hub.follower(pollMilliseconds: followerPollMilliseconds)
    }

    func engine(store: (any SwapStore)? = nil, wallet: Wallet? = nil) throws -> SubmarineClientEngine {
        let engine = try SubmarineClientEngine(
            configuration: SubmarineClientConfiguration(network: .regtest), seed: Self.clientSeed, store: store ?? self.store,
            wallet: wallet ?? self.wallet, lightning: clientLND, chain: hub.backend, feeEstimator: FeeEstimator(backend: hub.backend),
            follower: follower, connector: provider.connector(clientIdentity: clientIdentity, sleeper: hub.sleeper),
            clock: ClientWallClock(), sleeper: hub.sleeper)
        let progress = self.progress
        Task {
            for await event in engine.progress { progress.append(event) }
        }
        return engine
    }

    func offer() async throws -> ProviderOffer { try await provider.probedOffer(clientIdentity: clientIdentity) }

    /// A plain invoice of the payee (a contact that takes only Lightning).
    /// `finalCLTVExpiry` 0 is LND's default of 80, more than the scripted provider's 48-block
    /// timeout leaves a route: a test that needs a provider able to pay by the rules
    /// (`SubmarineRules.canStillPay`) asks for a shorter one.
    func payeeInvoice(amountSat: Int64, expirySeconds: UInt64 = 3_600, finalCLTVExpiry: UInt64 = 0) async throws -> String {
        try await payeeLND.addInvoice(amountMsat: UInt64(amountSat) * 1_000, memo: "to payee", expirySeconds: expirySeconds,
                                      cltvExpiry: finalCLTVExpiry).paymentRequest
    }

    func savings() async throws -> Int64 {
        _ = try await wallet.sync()
        return await wallet.balance().total
    }

    func lastKind(of id: String, in store: (any SwapStore)? = nil) async throws -> String? {
        try await (store ?? self.store).lastEvent(of: id)?.kind
    }

    /// Mines a block at a time until swap `id`'s last event is `kind`.
    func mineUntil(_ id: String, is kind: String, atMost blocks: Int, store: (any SwapStore)? = nil,
                   file: StaticString = #filePath, line: UInt = #line) async throws {
        for _ in 0..<blocks {
            if try await lastKind(of: id, in: store) == kind { return }
            try hub.mine(1)
            for _ in 0..<40 {
                try await Task.sleep(nanoseconds: 50_000_000)
                if try await lastKind(of: id, in: store) == kind { return }
            }
        }
        let last = try await lastKind(of: id, in: store)
        XCTFail("swap \(id) is in \(last ?? "nothing"), not \(kind), after \(blocks) blocks", file: file, line: line)
    }

    /// Every transaction on chain or in the mempool paying `script`.
    func payments(to script: Script) -> [Transaction] {
        hub.transactions(fromHeight: 0).filter { $0.outputs.contains { $0.scriptPubKey == script } }
    }

    func shutDown(_ engines: SubmarineClientEngine...) async {
        for engine in engines { await engine.shutDown() }
        followerTask.cancel()
        await follower.finish()
        await provider.shutDown()
        await hub.shutDown([clientLND, providerLND, payeeLND])
    }
}

/// Progress events collected from a submarine engine's stream.
final class SubmarineProgressLog: Sendable {
    private let events = Mutex<[SubmarineClientProgress]>([])
    func append(_ event: SubmarineClientProgress) { events.withLock { $0.append(event) } }
    var all: [SubmarineClientProgress] { events.withLock { $0 } }
}
