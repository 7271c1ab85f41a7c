import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// A submarine provider that lost its database: re-created from its own signed accept, the
/// quote and the client's request, it asks its Lightning node whether the invoice was paid.
/// Paid: it claims with the preimage LND returned, and the payment is never sent again.
/// Not paid: it never pays (recovery cannot know that no other record of a send existed),
/// and the client's lock is released at the timeout.
final class RecoverySubmarineProviderTests: XCTestCase {
    var harness: SubmarineProviderHarness!
    private var recovered: SubmarineProviderEngine?
    private var freshStore: SQLiteSwapStore?

    override func tearDown() async throws {
        await recovered?.shutdown()
        await freshStore?.close()
        await harness?.shutDown()
        harness = nil
    }

    /// The provider's parameters, as `recover --contract` takes them.
    private func parameters(_ swapID: String) async throws -> JSONValue {
        let record = try await XCTUnwrapAsync(try await harness.store.swap(swapID))
        return .object(["role": .string("provider"), "swap_index": .integer(record.swapIndex), "client": .string(record.peer),
                        "accept": try XCTUnwrap(record.contract["accept"]), "quote": try XCTUnwrap(record.contract["quote"]),
                        "request": try XCTUnwrap(record.contract["request"])])
    }

    /// A provider engine over a new, empty database (the old one is lost), with the same
    /// wallet, desk, follower and LND.
    private func engineOnFreshStore() async throws -> (SubmarineProviderEngine, SQLiteSwapStore) {
        let store = try SQLiteSwapStore.open(path: try StoreFixture.directory(for: self) + "/fresh.sqlite")
        freshStore = store
        let dependencies = ProviderDependencies(
            store: store, desk: harness.desk, lightning: harness.providerLND, chain: harness.hub.backend,
            feeEstimator: FeeEstimator(backend: harness.hub.backend), wallet: harness.wallet, follower: harness.follower,
            keyChain: try SwapKeyChain(seed: SubmarineProviderHarness.providerSeed, network: .regtest), clock: harness.clock)
        let engine = SubmarineProviderEngine(dependencies: dependencies,
                                             configuration: SubmarineProviderConfiguration(network: .regtest))
        return (engine, store)
    }

    /// Re-creates the swap from `parameters` on `store`, as `recover --contract` would.
    private func recreate(_ parameters: JSONValue, on store: SQLiteSwapStore) async throws -> SwapRecreator.Outcome {
        let recreator = try SwapRecreator(seed: SubmarineProviderHarness.providerSeed, network: .regtest,
                                          chain: harness.hub.backend, store: store, lightning: harness.providerLND)
        return try await recreator.recreate(
            try SubmarineRecoveryContract(json: parameters, network: .regtest, ownPubky: harness.identity.pubky),
            fromHeight: 0, nowUnix: harness.clock.nowUnix)
    }

    private func start(stoppingAfter kind: SubmarineProviderState.Kind) async throws {
        harness = try await SubmarineProviderHarness.start(
            storePath: try StoreFixture.directory(for: self) + "/provider.sqlite")
        try await harness.restart { StoppingSwapStore(base: $0, kind: kind.rawValue) }
    }

    func testAProviderThatLostItsDatabaseAfterPayingClaimsAndNeverPaysAgain() async throws {
        try await start(stoppingAfter: .paid)
        let (invoice, _, accept, contract) = try await harness.startSwap(amount: 30_000)
        let id = accept.swapID
        let lock = try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        // Paid, and the node stopped before it claimed: then the database is lost.
        try await harness.waitFor("the payment succeeded") { harness.providerPayment(invoice.paymentHash)?.status == .succeeded }
        try await harness.waitFor("paid is recorded") { try await harness.lastKind(id) == "paid" }
        let parameters = try await parameters(id)
        await harness.engine.shutdown()
        let outpoint = try SubmarineLock(verifying: lock, contract: contract, totalSat: accept.totalSat).output.outPoint
        XCTAssertTrue(spends(of: outpoint, on: harness.hub).isEmpty, "nothing claimed yet")

        let (engine, store) = try await engineOnFreshStore()
        let outcome = try await recreate(parameters, on: store)
        XCTAssertEqual(outcome.swapID, id)
        XCTAssertEqual(outcome.role, .provider)
        XCTAssertEqual(outcome.resumesAt, SubmarineProviderState.Kind.paid.rawValue)
        recovered = engine
        try await engine.start()
        try await harness.waitFor("the recovered swap's claim is out") {
            guard let event = try await store.lastEvent(of: id),
                  case .claimBroadcast(_, _, let claim) = try SubmarineProviderState(kind: event.kind, data: event.data) else {
                return false
            }
            return claim.acceptedAtHeight != nil
        }
        for _ in 0..<SubmarineProviderMachine.claimFinalDepth { try await harness.mine(1) }
        try await harness.waitFor("claimed") { try await store.lastEvent(of: id)?.kind == "claimed" }
        let claims = spends(of: outpoint, on: harness.hub)
        XCTAssertEqual(claims.count, 1)
        let claim = try XCTUnwrap(claims.first)
        XCTAssertTrue(harness.hub.backend.verifiedTransactions.contains(claim.txid), "the kernel verified the claim")
        try await harness.wallet.sync()
        let paysUs = await harness.wallet.transaction(claim.txid)
        XCTAssertNotNil(paysUs, "the claim pays the provider's wallet")
        XCTAssertEqual(harness.providerPayment(invoice.paymentHash)?.htlcs.count, 1, "the invoice was paid once")
        XCTAssertEqual(try harness.hub.balanceMsat("payee"), 30_000_000, "the payee got the invoice, once")
    }

    func testAProviderThatLostItsDatabaseBeforePayingNeverPays() async throws {
        try await start(stoppingAfter: .lockConfirmed)
        let (invoice, _, accept, contract) = try await harness.startSwap(amount: 30_000)
        let id = accept.swapID
        try await harness.lock(contract, amount: accept.totalSat)
        try await harness.mine(1)
        try await harness.waitFor("lock_confirmed is recorded") { try await harness.lastKind(id) == "lock_confirmed" }
        let parameters = try await parameters(id)
        await harness.engine.shutdown()
        XCTAssertNil(harness.providerPayment(invoice.paymentHash), "never paid before the loss")

        let (engine, store) = try await engineOnFreshStore()
        let outcome = try await recreate(parameters, on: store)
        XCTAssertEqual(outcome.resumesAt, SubmarineProviderState.Kind.paymentFailed.rawValue)
        recovered = engine
        try await engine.start()
        try await harness.mine(Int(accept.timeoutHeight) - harness.hub.height)
        try await harness.waitFor("released at the timeout") { try await store.lastEvent(of: id)?.kind == "released" }
        XCTAssertNil(harness.providerPayment(invoice.paymentHash), "recovery never pays")
    }

    /// A provider accept this node did not sign is refused, whatever keys it names.
    func testAnAcceptNotSignedByThisProviderIsRefused() async throws {
        harness = try await SubmarineProviderHarness.start(
            storePath: try StoreFixture.directory(for: self) + "/provider.sqlite")
        let (_, _, accept, _) = try await harness.startSwap(amount: 30_000)
        let parameters = try await parameters(accept.swapID)
        let stranger = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 0x0d, count: 32))).pubky
        do {
            _ = try SubmarineRecoveryContract(json: parameters, network: .regtest, ownPubky: stranger)
            XCTFail("an accept signed by another node was taken")
        } catch {
            XCTAssertTrue(error.description.contains("signature"), error.description)
        }
    }
}

/// Anyone may pay a contract's address once it is known, and the counterparty knows it
/// before the lock exists: recovery takes the payment of the agreed amount, not the first.
final class RecoveryLockChoiceTests: XCTestCase {
    func testTheAgreedAmountWinsOverAnEarlierPaymentThenTheLargest() {
        XCTAssertEqual(SwapRecreator.preferred([546, 25_515, 30_000], amount: 25_515), 1, "a dust payment came first")
        XCTAssertEqual(SwapRecreator.preferred([25_515, 25_515], amount: 25_515), 0)
        XCTAssertEqual(SwapRecreator.preferred([546, 30_000, 2_000], amount: 25_515), 1, "none agreed: the largest")
        XCTAssertNil(SwapRecreator.preferred([], amount: 25_515))
    }
}
