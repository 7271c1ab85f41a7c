import Bitcoin
import HTLC
@testable import PeerNode
import Transport
import XCTest

/// Issue 17: after a cooperative claim both nodes lose their databases. The key-path claim
/// on chain reveals no preimage and no script: recovery reads it as what only the two
/// parties together can make. The client's swap resumes at `claim_broadcast` with that
/// claim and completes; the provider, which co-signs only after its invoice settled, is
/// told there is nothing left to collect (not "our refund", which it is not).
final class RecoveryKeyPathTests: XCTestCase {
    private let amount: Int64 = 100_000

    func testAKeyPathClaimIsTheClientsClaimAndLeavesTheProviderNothingToCollect() async throws {
        try await EndToEndNetwork.run(directory: try StoreFixture.directory(for: self), cooperation: .on) { network in
            let hub = network.hub
            let client = network.client
            let provider = network.provider
            let (destination, decision, _) = try await network.routeToPayee(amountSat: amount)
            let report = try await client.engine.pay(destination: destination, amountSat: amount, route: decision)
            XCTAssertEqual(report.claimSpend.path, .keyPath)
            try hub.mine(1)
            try await network.eventually("the provider settles") { try await provider.lastKind(report.swapID) == "settled" }
            let id = report.swapID
            let clientParameters = try await clientRecoveryParameters(client.disk, swapID: id)
            let providerParameters = try await providerRecoveryParameters(provider.disk, swapID: id)
            await client.kill()
            try deleteDatabase(at: client.storePath)
            try await client.restart()
            await provider.kill()
            try deleteDatabase(at: provider.storePath)
            try await provider.restart()

            let clientRecreator = try SwapRecreator(seed: SwapClientNode.seed, network: .regtest, chain: hub.backend,
                                                    store: client.disk)
            let outcome = try await clientRecreator.recreate(try RecoveryContract(json: clientParameters, network: .regtest),
                                                             fromHeight: 0, nowUnix: client.clock.nowUnix)
            XCTAssertEqual(outcome.resumesAt, ClientSwapPhase.claimBroadcast.rawValue)
            try await client.engine.recover()
            try await network.eventually("the recovered swap completes") { try await client.lastKind(id) == "completed" }
            let recovered = try await client.storedState(id)
            XCTAssertEqual(recovered?.claim?.txid, report.claimTxid)

            let providerRecreator = try SwapRecreator(seed: SwapProviderNode.seed, network: .regtest, chain: hub.backend,
                                                      store: provider.disk)
            do {
                _ = try await providerRecreator.recreate(try RecoveryContract(json: providerParameters, network: .regtest),
                                                         fromHeight: 0, nowUnix: provider.clock.nowUnix)
                XCTFail("nothing is left to recover")
            } catch RecoveryError.nothingToRecover(let why) {
                XCTAssertTrue(why.contains("key path") && why.contains("settled"), why)
            }
        }
    }
}
