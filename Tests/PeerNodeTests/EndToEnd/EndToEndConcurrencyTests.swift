import Bitcoin
import HTLC
import Lightning
import Offers
@testable import PeerNode
import TestSupport
import XCTest

/// Swaps that overlap, and a client that waits for a confirmed lock: the provider funds
/// several locks from one wallet at once, pushes reach the right swap, and without
/// zero-conf the claim waits for the lock's block.
final class EndToEndConcurrencyTests: XCTestCase {
    func testThreeConcurrentPaymentsAllDeliverAndSettle() async throws {
        // Each above 1283 / 5% (the client refuses a fee over 5% of the amount).
        try await payConcurrently([60_000, 80_000, 100_000])
    }

    /// Five at once: more swaps than the Lightning client's HTTP pool has connections (4
    /// per node). Invoice subscriptions and payment streams each hold one while open, so
    /// the provider must not keep a swap's subscription past the point it needs it, or its
    /// settles can never get a connection and claimed swaps are never paid for.
    func testFiveConcurrentPaymentsAllDeliverAndSettle() async throws {
        try await payConcurrently([60_000, 70_000, 80_000, 90_000, 100_000])
    }

    /// Pays each amount to its own fresh address of the payee, all at once, and checks
    /// every delivery, every settlement and the sums.
    private func payConcurrently(_ amounts: [Int64]) async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self)) { network in
            var destinations: [Address] = []
            for _ in amounts { destinations.append(try await network.client.onchainEndpoint(of: network.payee.contact)) }
            let decision = try await network.routeThroughProvider(amountSat: amounts[0], to: destinations[0])
            let provider = try XCTUnwrap(decision.choice).provider
            let before = try await network.balances()
            let engine = network.client.engine
            let reports = try await withThrowingTaskGroup(of: ClientPayReport.self) { group in
                for (amount, destination) in zip(amounts, destinations) {
                    group.addTask { try await engine.pay(destination: destination, amountSat: amount, via: provider) }
                }
                var all: [ClientPayReport] = []
                for try await report in group { all.append(report) }
                return all
            }
            XCTAssertEqual(Set(reports.map(\.swapID)).count, amounts.count)
            try network.hub.mine(1)
            for report in reports {
                try await network.eventually("\(report.swapID) completes") { try await network.client.lastKind(report.swapID) == "completed" }
                try await network.eventually("\(report.swapID) settles") { try await network.provider.lastKind(report.swapID) == "settled" }
            }
            // Each destination holds exactly its X; the locks are distinct transactions.
            for (amount, destination) in zip(amounts, destinations) {
                let report = try XCTUnwrap(reports.first { $0.amountSat == amount })
                let out = network.hub.chain.unspentOutput(OutPoint(txid: report.claimTxid, index: 0), includeMempool: false)
                XCTAssertEqual(out?.output, TransactionOutput(value: amount, scriptPubKey: destination.script))
            }
            var lockFees: Int64 = 0
            var lockTxids = Set<TransactionID>()
            for report in reports {
                let lock = try await network.provider.recordedLock(report.swapID)
                lockFees += try XCTUnwrap(lock).fee
                lockTxids.insert(try XCTUnwrap(lock).txid)
            }
            XCTAssertEqual(lockTxids.count, amounts.count)
            let after = try await network.balances()
            let delivered = amounts.reduce(0, +)
            let claimFees = reports.reduce(0) { $0 + $1.claimFeeSat }
            let invoices = reports.reduce(0) { $0 + $1.invoiceTotalSat }
            XCTAssertEqual(after.payeeChainSat - before.payeeChainSat, delivered)
            XCTAssertEqual(before.providerChainSat - after.providerChainSat, delivered + claimFees + lockFees)
            XCTAssertEqual(after.lightningMsat("provider") - before.lightningMsat("provider"), UInt64(invoices) * 1_000)
            XCTAssertEqual(before.lightningMsat("client") - after.lightningMsat("client"),
                           UInt64(invoices) * 1_000 + after.lightning.feesCollectedMsat - before.lightning.feesCollectedMsat)
            XCTAssertTrue(after.lightning.isConserved)
        }
    }

    func testWithoutZeroConfTheClaimWaitsForTheLocksBlock() async throws {
        let amount: Int64 = 100_000
        let configuration = ClientEngineConfiguration(network: .regtest, allowsZeroConf: false, giveUpSeconds: 60,
                                                      confirmationWaitMilliseconds: 200, requestTimeoutMilliseconds: 5_000,
                                                      reconnectInitialMilliseconds: 50, reconnectMaximumMilliseconds: 400)
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self),
                                      clientConfiguration: configuration) { network in
            let destination = try await network.client.onchainEndpoint(of: network.payee.contact)
            let decision = try await network.routeThroughProvider(amountSat: amount, to: destination)
            let engine = network.client.engine
            let paying = Task { try await engine.pay(destination: destination, amountSat: amount, route: decision) }
            let client = network.client
            var id = ""
            try await network.eventually("the lock is verified, unconfirmed") {
                guard let record = try await client.disk.allSwaps(limit: 1).first else { return false }
                id = record.id
                return try await client.lastKind(record.id) == "lock_verified"
            }
            let lockFound = try await network.provider.recordedLock(id)
            let lock = try XCTUnwrap(lockFound)
            XCTAssertNotNil(network.hub.chain.mempoolEntry(lock.txid))
            try await Task.sleep(for: .milliseconds(200))
            XCTAssertEqual(spends(of: lock.outPoint, on: network.hub), [], "no claim of an unconfirmed lock")
            try network.hub.mine(1)
            let report = try await within(seconds: 30) { try await paying.value }
            XCTAssertEqual(report.swapID, id)
            XCTAssertEqual(spends(of: lock.outPoint, on: network.hub).map(\.txid), [report.claimTxid])
            try network.hub.mine(1)
            try await network.eventually("completed") { try await client.lastKind(id) == "completed" }
            try await network.eventually("settled") { try await network.provider.lastKind(id) == "settled" }
            let received = try await network.payee.chainBalance()
            XCTAssertEqual(received, amount)
        }
    }
}
