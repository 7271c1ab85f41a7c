import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import Regtest
import Transport
import XCTest

/// A swap runs to completion, then both nodes lose their databases. Scanning the chain with
/// each node's seed alone finds that node's swap: the right index, the right side, the
/// preimage the claim revealed, and nothing else.
final class RecoveryScanTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testBothSidesFindTheirTaprootSwapFromTheSeedAndTheChain() async throws {
        try await findBothSides(contractType: .taprootBoltz)
    }

    func testBothSidesFindTheirP2WSHSwapFromTheSeedAndTheChain() async throws {
        try await findBothSides(contractType: .p2wsh)
    }

    private func findBothSides(contractType: ContractType) async throws {
        let network = try await EndToEndNetwork.start(directory: try StoreFixture.directory(for: self))
        do {
            try await run(network, contractType: contractType)
        } catch {
            await network.shutDown()
            throw error
        }
        await network.shutDown()
    }

    private func run(_ network: EndToEndNetwork, contractType: ContractType) async throws {
        let hub = network.hub
        let client = network.client
        let provider = network.provider
        let destination = try await client.onchainEndpoint(of: network.payee.contact)
        let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
        let choice = try XCTUnwrap(decision.choice)
        let engine = client.engine
        let report = try await engine.pay(destination: destination, amountSat: amount, via: choice.provider,
                                          contractType: contractType)
        let id = report.swapID
        try hub.mine(1)
        try await network.eventually("the client's swap completes") { try await client.lastKind(id) == "completed" }
        try await network.eventually("the provider's swap settles") { try await provider.lastKind(id) == "settled" }
        let clientRecord = try await client.disk.swap(id)
        let providerRecord = try await provider.disk.swap(id)
        let clientIndex = try XCTUnwrap(clientRecord).swapIndex
        let providerIndex = try XCTUnwrap(providerRecord).swapIndex
        let secrets = try SwapKeyChain(seed: SwapClientNode.seed, network: .regtest).secrets(index: clientIndex, scheme: .current)
        let lockFound = try await provider.recordedLock(id)
        let lock = try XCTUnwrap(lockFound)

        // Both databases are gone; the nodes come back empty.
        await client.kill()
        try deleteDatabase(at: client.storePath)
        let resumed = try await client.restart()
        XCTAssertEqual(resumed, [])
        await provider.kill()
        try deleteDatabase(at: provider.storePath)
        try await provider.restart()
        let clientSwaps = try await client.disk.allSwaps(limit: 10)
        let providerSwaps = try await provider.disk.allSwaps(limit: 10)
        XCTAssertTrue(clientSwaps.isEmpty && providerSwaps.isEmpty, "the records are gone")

        // The client's seed finds its claim.
        let clientScan = try await RecoveryScanner(seed: SwapClientNode.seed, network: .regtest, chain: hub.backend).scan(fromHeight: 0)
        XCTAssertEqual(clientScan.toHeight, hub.height)
        XCTAssertEqual(clientScan.spends.count, 1, "\(clientScan.spends)")
        let clientFound = try XCTUnwrap(clientScan.spends.first)
        XCTAssertEqual(clientFound.index, clientIndex)
        XCTAssertEqual(clientFound.side, .client(.reverse))
        XCTAssertEqual(clientFound.kind, .claim)
        XCTAssertEqual(clientFound.contractType, contractType)
        XCTAssertEqual(clientFound.lock, lock.outPoint)
        XCTAssertEqual(clientFound.spendingTxid, report.claimTxid)
        XCTAssertEqual(clientFound.preimage, secrets.preimage)
        XCTAssertEqual(clientFound.paymentHash, secrets.paymentHash)

        // The provider's seed finds the client's claim of its lock, and the preimage in it.
        let providerScan = try await RecoveryScanner(seed: SwapProviderNode.seed, network: .regtest, chain: hub.backend).scan(fromHeight: 0)
        XCTAssertEqual(providerScan.spends.count, 1, "\(providerScan.spends)")
        let providerFound = try XCTUnwrap(providerScan.spends.first)
        XCTAssertEqual(providerFound.index, providerIndex)
        // Taproot: the internal key's order says the provider's refund key came first. P2WSH:
        // only that the lock is one our refund key made (`.locker`).
        XCTAssertEqual(providerFound.side, contractType == .taprootBoltz ? .provider(.reverse) : .locker)
        XCTAssertEqual(providerFound.kind, .claim)
        XCTAssertEqual(providerFound.lock, lock.outPoint)
        XCTAssertEqual(providerFound.preimage, secrets.preimage)
        XCTAssertEqual(providerFound.paymentHash, secrets.paymentHash)

        // A seed that never swapped finds nothing on the same chain.
        let stranger = try await RecoveryScanner(seed: [UInt8](repeating: 0x33, count: 32), network: .regtest, chain: hub.backend)
            .scan(fromHeight: 0)
        XCTAssertEqual(stranger.spends, [])
        XCTAssertEqual(stranger.indexesSearched, RecoveryScanner.defaultGapLimit)
    }
}
