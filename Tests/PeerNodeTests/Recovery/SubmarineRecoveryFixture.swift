import Bitcoin
import HTLC
@testable import PeerNode
import TestSupport
import XCTest

/// A client submarine swap brought to a confirmed lock on the hub, for the recovery tests.
struct ConfirmedSubmarineLock {
    let id: String
    /// The scripted provider's side: its accept, contract and claim key.
    let swap: SubmarineScriptedProvider.Swap
    let lock: LockOutput
    /// The engine's `pay`, still waiting for the preimage.
    let paying: Task<SubmarineClientReport, any Error>
}

extension SubmarineEngineHubFixture {
    /// `engine` pays the payee's invoice of `amount` through the scripted provider; returns
    /// once the client's lock has its confirmation.
    func confirmedLock(_ engine: SubmarineClientEngine, amount: Int64,
                       type: ContractType = .taprootBoltz) async throws -> ConfirmedSubmarineLock {
        let invoice = try await payeeInvoice(amountSat: amount)
        let offer = try await self.offer()
        let paying = Task { try await engine.pay(invoice: invoice, via: offer, contractType: type) }
        let id = try await onlySwapID()
        try await mineUntil(id, is: "lock_confirmed", atMost: 3)
        let swap = try await XCTUnwrapAsync(await provider.onlySwap)
        let lock = try await XCTUnwrapAsync(await provider.lock(of: swap))
        return ConfirmedSubmarineLock(id: id, swap: swap, lock: lock, paying: paying)
    }

    /// The id of the one swap in the client's store, once it is recorded.
    func onlySwapID() async throws -> String {
        try await clientEventually("the swap is recorded") { try await !self.store.allSwaps(limit: 1).isEmpty }
        return try await XCTUnwrapAsync(try await store.allSwaps(limit: 1).first).id
    }
}
