import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import TestSupport
import Transport
import XCTest

/// Submarine swaps spent on the hub (the kernel verifies every block and broadcast), then
/// read back by the scan from each seed alone: the provider's claim (its claim key, the
/// payee's preimage) and the client's refund, of both contract types.
final class RecoverySubmarineScanTests: XCTestCase {
    private let amount: Int64 = 20_000
    /// The scripted provider's seed (`SubmarineEngineHubFixture`'s, byte 0x62) and the index
    /// of its first claim key.
    private let providerSeed = [UInt8](repeating: 0x62, count: 32)

    func testTheProvidersTaprootClaimIsFoundByBothSeeds() async throws {
        try await claimFound(.taprootBoltz, clientSide: .client(.submarine))
    }

    func testTheProvidersP2WSHClaimIsFoundByBothSeeds() async throws {
        try await claimFound(.p2wsh, clientSide: .locker)
    }

    func testTheClientsTaprootRefundIsFoundByBothSeeds() async throws {
        try await refundFound(.taprootBoltz)
    }

    func testTheClientsP2WSHRefundIsFoundByBothSeeds() async throws {
        try await refundFound(.p2wsh)
    }

    /// The provider pays the payee's invoice and claims; the claim confirms.
    private func claimFound(_ type: ContractType, clientSide: RecoveredSpend.Side) async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        do {
            let locked = try await fixture.confirmedLock(engine, amount: amount, type: type)
            let (id, swap, lock) = (locked.id, locked.swap, locked.lock)
            let preimage = try await fixture.provider.payInvoice(of: swap)
            let claim = try await fixture.provider.claim(swap, lock: lock, preimage: preimage)
            _ = try await within(seconds: 30) { try await locked.paying.value }
            try await fixture.mineUntil(id, is: "completed", atMost: 2)
            XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(claim.txid), "the kernel verified the claim")
            let record = try await XCTUnwrapAsync(try await fixture.store.swap(id))

            let providerScan = try await RecoveryScanner(seed: providerSeed, network: .regtest, chain: fixture.hub.backend)
                .scan(fromHeight: 0)
            XCTAssertEqual(providerScan.spends.map(RecoveryMatcherTests.label), ["provider/submarine claim 0"], "\(type)")
            XCTAssertEqual(providerScan.spends.first?.preimage, preimage)
            XCTAssertEqual(providerScan.spends.first?.paymentHash, SHA256.hash(preimage))
            XCTAssertEqual(providerScan.spends.first?.lock, lock.outPoint)
            XCTAssertEqual(providerScan.spends.first?.spendingTxid, claim.txid)
            XCTAssertEqual(providerScan.spends.first?.contractType, type)

            let clientScan = try await RecoveryScanner(seed: SubmarineEngineHubFixture.clientSeed, network: .regtest,
                                                       chain: fixture.hub.backend).scan(fromHeight: 0)
            XCTAssertEqual(clientScan.spends.map(\.side), [clientSide], "\(type)")
            XCTAssertEqual(clientScan.spends.first?.index, record.swapIndex)
            XCTAssertEqual(clientScan.spends.first?.kind, .claim)
            XCTAssertEqual(clientScan.spends.first?.preimage, preimage, "the proof of payment, from the seed and the chain")
            XCTAssertEqual(clientScan.spends.first?.scheme, record.keyScheme)
        } catch {
            await fixture.shutDown(engine)
            throw error
        }
        await fixture.shutDown(engine)
    }

    /// The provider never pays: the client's engine refunds from the timeout.
    private func refundFound(_ type: ContractType) async throws {
        let fixture = try await SubmarineEngineHubFixture()
        let engine = try fixture.engine()
        do {
            let locked = try await fixture.confirmedLock(engine, amount: amount, type: type)
            let (id, swap, lock) = (locked.id, locked.swap, locked.lock)
            try fixture.hub.mine(max(0, Int(swap.contract.terms.timeoutHeight) - fixture.hub.height))
            try await fixture.mineUntil(id, is: "refunded", atMost: 4)
            _ = try? await locked.paying.value
            let record = try await XCTUnwrapAsync(try await fixture.store.swap(id))
            let state = try await XCTUnwrapAsync(try await fixture.store.lastEvent(of: id))
            let refund = try XCTUnwrap(try SubmarineClientState(kind: state.kind, data: state.data).refund)
            XCTAssertTrue(fixture.hub.backend.verifiedTransactions.contains(refund.txid), "the kernel verified the refund")

            let clientScan = try await RecoveryScanner(seed: SubmarineEngineHubFixture.clientSeed, network: .regtest,
                                                       chain: fixture.hub.backend).scan(fromHeight: 0)
            XCTAssertEqual(clientScan.spends.map(RecoveryMatcherTests.label), ["locker refund \(record.swapIndex)"], "\(type)")
            XCTAssertEqual(clientScan.spends.first?.lock, lock.outPoint)
            XCTAssertNil(clientScan.spends.first?.preimage)

            let providerScan = try await RecoveryScanner(seed: providerSeed, network: .regtest, chain: fixture.hub.backend)
                .scan(fromHeight: 0)
            XCTAssertEqual(providerScan.spends.map(RecoveryMatcherTests.label), ["provider/submarine refund 0"], "\(type)")
            XCTAssertEqual(providerScan.spends.first?.spendingTxid, refund.txid)
        } catch {
            await fixture.shutDown(engine)
            throw error
        }
        await fixture.shutDown(engine)
    }
}
