import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// Locks that are not spent yet cannot be found from the seed alone (the contract needs the
/// counterparty's key and the timeout); with the parameters the SwapAccept had, the record
/// is re-created and the engine's own recovery finishes the swap.
final class RecoveryRecreateTests: XCTestCase {
    private let amount: Int64 = 100_000

    /// The client paid, the lock confirmed, then the client lost its database before
    /// claiming. Recovered with its accept: the claim pays exactly X to the original
    /// destination and the provider settles.
    func testAClientThatLostItsDatabaseClaimsItsConfirmedLock() async throws {
        let network = try await EndToEndNetwork.start(
            directory: try StoreFixture.directory(for: self),
            clientStore: { DyingSwapStore($0, diesAfter: ClientSwapPhase.payStarted.rawValue, .atTheNextWrite) })
        do {
            try await clientClaims(network)
        } catch {
            await network.shutDown()
            throw error
        }
        await network.shutDown()
    }

    /// The client never claimed and the provider lost its database. Recovered with its
    /// accept, quote and request past the timeout: the refund confirms to the provider's
    /// wallet and the invoice is cancelled, so the client's payment returns.
    func testAProviderThatLostItsDatabaseRefundsItsLockAfterTheTimeout() async throws {
        let network = try await EndToEndNetwork.start(
            directory: try StoreFixture.directory(for: self),
            clientStore: { DyingSwapStore($0, diesAfter: ClientSwapPhase.payStarted.rawValue, .atTheNextWrite) })
        do {
            try await providerRefunds(network)
        } catch {
            await network.shutDown()
            throw error
        }
        await network.shutDown()
    }

    /// Both nodes lost their databases while the lock waited. The client is recovered first
    /// and claims; the provider, recovered after, finds that claim, resumes at
    /// `claim_observed` with the revealed preimage and settles its invoice.
    func testAProviderRecoveredAfterTheClaimSettlesWithTheRevealedPreimage() async throws {
        let network = try await EndToEndNetwork.start(
            directory: try StoreFixture.directory(for: self),
            clientStore: { DyingSwapStore($0, diesAfter: ClientSwapPhase.payStarted.rawValue, .atTheNextWrite) })
        do {
            try await bothRecovered(network)
        } catch {
            await network.shutDown()
            throw error
        }
        await network.shutDown()
    }

    private func bothRecovered(_ network: EndToEndNetwork) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let (id, clientIndex, lock, destination) = try await paidAndLocked(network)
        try hub.mine(1)
        let secrets = try SwapKeyChain(seed: SwapClientNode.seed, network: .regtest).secrets(index: clientIndex, scheme: .current)
        let clientParameters = try await clientRecoveryParameters(client.disk, swapID: id)
        let providerParameters = try await providerRecoveryParameters(provider.disk, swapID: id)
        await provider.kill()
        try deleteDatabase(at: provider.storePath)
        try await provider.restart()
        await client.kill()
        try deleteDatabase(at: client.storePath)
        try await client.restart()

        let clientRecreator = try SwapRecreator(seed: SwapClientNode.seed, network: .regtest, chain: hub.backend, store: client.disk)
        _ = try await clientRecreator.recreate(try RecoveryContract(json: clientParameters, network: .regtest), fromHeight: 0,
                                               nowUnix: client.clock.nowUnix)
        try await client.engine.recover()
        try await network.eventually("the claim is broadcast") { !spends(of: lock.outPoint, on: hub).isEmpty }
        try hub.mine(1)
        try await network.eventually("the client's swap completes") { try await client.lastKind(id) == "completed" }
        let held = try await provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(held.state, .accepted, "the provider without its record has not settled")

        // The seed alone already tells the provider its lock was claimed, and the preimage.
        let scan = try await RecoveryScanner(seed: SwapProviderNode.seed, network: .regtest, chain: hub.backend).scan(fromHeight: 0)
        XCTAssertEqual(scan.spends.map(\.role), [.provider])
        XCTAssertEqual(scan.spends.first?.preimage, secrets.preimage)

        let providerRecreator = try SwapRecreator(seed: SwapProviderNode.seed, network: .regtest, chain: hub.backend, store: provider.disk)
        let outcome = try await providerRecreator.recreate(try RecoveryContract(json: providerParameters, network: .regtest),
                                                           fromHeight: 0, nowUnix: provider.clock.nowUnix)
        XCTAssertEqual(outcome.resumesAt, ProviderSwapState.Kind.claimObserved.rawValue)
        try await provider.engine.recover()
        try await network.eventually("the provider settles") { try await provider.lastKind(id) == "settled" }
        let settled = try await provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(settled.state, .settled)
        XCTAssertEqual(try hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash).status, .succeeded)
        let received = hub.transactions(paying: destination.script, fromHeight: 0).flatMap(\.outputs)
            .filter { $0.scriptPubKey == destination.script }.map(\.value)
        XCTAssertEqual(received, [amount])
    }

    /// Pays, lets the client's node die right after the payment left, and waits for the
    /// provider's lock: the swap id, the client's index and the lock.
    private func paidAndLocked(_ network: EndToEndNetwork) async throws -> (String, UInt32, ProviderLock, Address) {
        let client = network.client
        let dying = try XCTUnwrap(client.store as? DyingSwapStore)
        let destination = try await client.onchainEndpoint(of: network.payee.contact)
        let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
        let engine = client.engine
        let amount = self.amount
        do {
            _ = try await within(seconds: 60) {
                try await engine.pay(destination: destination, amountSat: amount, route: decision)
            }
            XCTFail("a dead node broadcasts no claim")
        } catch ClientEngineError.store {
            // The run stopped at the failed write.
        }
        await dying.waitForDeath()
        let swaps = try await client.disk.allSwaps(limit: 10)
        let record = try XCTUnwrap(swaps.first)
        try await network.eventually("the provider locks") { try await network.provider.lastKind(record.id) == "lock_broadcast" }
        let lockFound = try await network.provider.recordedLock(record.id)
        return (record.id, record.swapIndex, try XCTUnwrap(lockFound), destination)
    }

    private func clientClaims(_ network: EndToEndNetwork) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let (id, index, lock, destination) = try await paidAndLocked(network)
        try hub.mine(1)
        let parameters = try await clientRecoveryParameters(client.disk, swapID: id)
        let payeeBefore = try await network.payee.chainBalance()

        // The database is lost; the node restarts with nothing to resume.
        await client.kill()
        try deleteDatabase(at: client.storePath)
        let nothing = try await client.restart()
        XCTAssertEqual(nothing, [])

        let recreator = try SwapRecreator(seed: SwapClientNode.seed, network: .regtest, chain: hub.backend, store: client.disk)
        var wrongIndex = parameters
        if case .object(var members) = wrongIndex {
            members["swap_index"] = .integer(index + 1)
            wrongIndex = .object(members)
        }
        do {
            _ = try await recreator.recreate(try RecoveryContract(json: wrongIndex, network: .regtest), fromHeight: 0,
                                             nowUnix: client.clock.nowUnix)
            XCTFail("parameters for another index are not ours")
        } catch RecoveryError.invalidContract {
            // Refused before anything was written.
        }
        let untouched = try await client.disk.allSwaps(limit: 10)
        XCTAssertTrue(untouched.isEmpty)
        let outcome = try await recreator.recreate(try RecoveryContract(json: parameters, network: .regtest), fromHeight: 0,
                                                   nowUnix: client.clock.nowUnix)
        XCTAssertEqual(outcome.swapID, id)
        XCTAssertEqual(outcome.role, .client)
        XCTAssertEqual(outcome.index, index)
        XCTAssertEqual(outcome.lock, lock.outPoint)
        XCTAssertEqual(outcome.resumesAt, ClientSwapPhase.lockSeen.rawValue)
        let next = try await client.disk.reserveSwapIndex()
        XCTAssertGreaterThan(next, index, "a recovered index is never handed out again")

        let resumed = try await client.engine.recover()
        XCTAssertEqual(resumed, [id])
        try await network.eventually("the claim is broadcast") { !spends(of: lock.outPoint, on: hub).isEmpty }
        let claims = spends(of: lock.outPoint, on: hub)
        XCTAssertEqual(claims.count, 1)
        let claim = try XCTUnwrap(claims.first)
        XCTAssertEqual(claim.inputs.count, 1)
        XCTAssertEqual(claim.outputs, [TransactionOutput(value: amount, scriptPubKey: destination.script)],
                       "exactly X to the original destination")
        XCTAssertTrue(hub.backend.verifiedTransactions.contains(claim.txid), "kernel-verified")
        try hub.mine(1)
        try await network.eventually("the recovered swap completes") { try await client.lastKind(id) == "completed" }
        try await network.eventually("the provider settles") { try await provider.lastKind(id) == "settled" }
        let kinds = try await client.kinds(id)
        XCTAssertEqual(kinds.first, "recovered")
        let payeeAfter = try await network.payee.chainBalance()
        XCTAssertEqual(payeeAfter - payeeBefore, amount)
    }

    private func providerRefunds(_ network: EndToEndNetwork) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let (id, clientIndex, lock, destination) = try await paidAndLocked(network)
        await client.kill()
        let secrets = try SwapKeyChain(seed: SwapClientNode.seed, network: .regtest).secrets(index: clientIndex, scheme: .current)
        let parameters = try await providerRecoveryParameters(provider.disk, swapID: id)
        let stored = try await provider.disk.swap(id)
        let record = try XCTUnwrap(stored)
        let timeout = Int(try ProviderSwapRecord(record: record, network: .regtest).accept.body.timeoutHeight)

        // The provider's database is lost while its lock waits; the timeout passes.
        await provider.kill()
        try deleteDatabase(at: provider.storePath)
        try await provider.restart()
        let empty = try await provider.disk.allSwaps(limit: 10)
        XCTAssertTrue(empty.isEmpty)
        try hub.mine(max(0, timeout - hub.height))

        let recreator = try SwapRecreator(seed: SwapProviderNode.seed, network: .regtest, chain: hub.backend, store: provider.disk)
        let outcome = try await recreator.recreate(try RecoveryContract(json: parameters, network: .regtest), fromHeight: 0,
                                                   nowUnix: provider.clock.nowUnix)
        XCTAssertEqual(outcome.role, .provider)
        XCTAssertEqual(outcome.index, record.swapIndex)
        XCTAssertEqual(outcome.lock, lock.outPoint)
        XCTAssertEqual(outcome.resumesAt, ProviderSwapState.Kind.lockBroadcast.rawValue)
        let recoveredLock = try await provider.recordedLock(id)
        XCTAssertEqual(recoveredLock?.fee, lock.fee, "the lock's fee is read back from its parents")

        try await provider.engine.recover()
        try await network.eventually("the refund is broadcast") { try await provider.lastKind(id) == "refund_broadcast" }
        let refunds = spends(of: lock.outPoint, on: hub)
        XCTAssertEqual(refunds.count, 1)
        let refund = try XCTUnwrap(refunds.first)
        let paysProvider = await provider.wallet.owns(try XCTUnwrap(refund.outputs.first).scriptPubKey)
        XCTAssertTrue(paysProvider, "the refund pays the provider's wallet")
        XCTAssertTrue(hub.backend.verifiedTransactions.contains(refund.txid), "kernel-verified")
        try hub.mine(ProviderSwapMachine.refundCancelDepth)
        try await network.eventually("the recovered swap ends refunded") { try await provider.lastKind(id) == "refunded" }
        // The refund is bumped at each block until one version confirms (the engine's RBF
        // escalation), so the version mined may be a later one than the first broadcast.
        let mined = try XCTUnwrap(spends(of: lock.outPoint, on: hub).first { version in
            if case .block? = hub.chain.transaction(version.txid)?.location { return true }
            return false
        }, "the refund is confirmed")
        let minedPaysProvider = await provider.wallet.owns(try XCTUnwrap(mined.outputs.first).scriptPubKey)
        XCTAssertTrue(minedPaysProvider, "the mined refund pays the provider's wallet")
        let cancelled = try await provider.lnd.lookupInvoice(paymentHash: secrets.paymentHash)
        XCTAssertEqual(cancelled.state, .canceled)
        XCTAssertEqual(try hub.lightning.payment(node: "client", paymentHash: secrets.paymentHash).status, .failed)
        XCTAssertFalse(hub.transactions(paying: destination.script, fromHeight: 0).contains { _ in true })

        // The scan reads the refund from both sides: the provider's own refund (a lock its
        // refund key made: the refund leaf cannot say in which direction), and, for the
        // client's seed, a refund of the lock that was meant for it (the refund leaf holds
        // only the provider's key; the internal key gives the client's index away).
        let providerScan = try await RecoveryScanner(seed: SwapProviderNode.seed, network: .regtest, chain: hub.backend).scan(fromHeight: 0)
        XCTAssertEqual(providerScan.spends.map(RecoveryMatcherTests.label), ["locker refund \(record.swapIndex)"])
        XCTAssertEqual(providerScan.spends.first?.index, record.swapIndex)
        XCTAssertEqual(providerScan.spends.first?.spendingTxid, mined.txid)
        XCTAssertNil(providerScan.spends.first?.preimage)
        let clientScan = try await RecoveryScanner(seed: SwapClientNode.seed, network: .regtest, chain: hub.backend).scan(fromHeight: 0)
        XCTAssertEqual(clientScan.spends.map(RecoveryMatcherTests.label), ["client/reverse refund \(clientIndex)"])
        XCTAssertEqual(clientScan.spends.first?.index, clientIndex)
        XCTAssertEqual(clientScan.spends.first?.paymentHash, secrets.paymentHash)
    }
}
