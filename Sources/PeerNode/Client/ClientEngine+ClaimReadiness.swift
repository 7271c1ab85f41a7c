import Bitcoin
import HTLC

extension ClientEngine {
    /// Whether the first claim of `lock` may be built now: the tip read, the first-claim
    /// rule (timeout − tip > 6) unless the preimage may be the provider's already
    /// (`revealed`: after a cooperative round, a claim goes out at any height), and the
    /// lock held by this node itself with its confirmations.
    func claimReadiness(_ run: ClientSwapRun, lock: LockOutput, revealed: Bool) async -> ClientClaimReadiness {
        guard let contract = run.contract else { return .wait }
        let tip: ChainTip
        do { tip = try await chain.tip() } catch {
            // Tried again at the next block.
            note(run.id, "cannot read the tip to claim (\(error)); retrying at the next block")
            return .wait
        }
        if !revealed {
            do {
                let policy = try TimelockPolicy(requiredConfirmations: run.terms.requiredConfirmations,
                                                htlcTimeoutBlocks: run.terms.quote.body.htlcTimeoutBlocks)
                try policy.checkFirstClaim(timeoutHeight: contract.terms.timeoutHeight, tipHeight: UInt32(clamping: tip.height))
            } catch {
                return .impossible("\(error)")
            }
        }
        // Claim only a lock this node holds itself: a pushed lock the provider never
        // broadcast would make the claim (and the preimage in it) worthless.
        switch await Self.lockHolding(lock, transaction: run.state.lock?.transaction,
                                      requiredConfirmations: run.terms.requiredConfirmations, chain: chain) {
        case .held:
            return .ready(tipHeight: tip.height)
        case .shallow(let confirmations):
            // Revealed already: the claim is the way to the money, however deep the lock.
            if revealed { return .ready(tipHeight: tip.height) }
            // The node knows it less deep than the machine thought: correct it and wait.
            if let sighting = run.state.lock, sighting.txid == lock.outPoint.txid {
                feed(run.id, .lockSeen(sighting.with(confirmations: confirmations)))
            }
            return .wait
        case .notHeld(let why):
            note(run.id, "not claiming yet: \(why); retrying at the next block")
            return .wait
        }
    }

    /// The tip to claim at when `claimReadiness` says ready; nil otherwise, after feeding
    /// `impossible(why)` when it never will be.
    func readyTip(_ run: ClientSwapRun, lock: LockOutput, revealed: Bool,
                  impossible: (String) -> ClientSwapInput) async -> Int? {
        switch await claimReadiness(run, lock: lock, revealed: revealed) {
        case .wait: return nil
        case .impossible(let why):
            feed(run.id, impossible(why))
            return nil
        case .ready(let height): return height
        }
    }
}
