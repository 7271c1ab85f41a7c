import Bitcoin
import HTLC
import Lightning

extension SubmarineProviderEngine {
    /// Runs one action for a swap and returns what it learned, if anything. Failures are
    /// logged and return nil or a retryable input: the next block or restart retries.
    func perform(_ action: SubmarineProviderAction, swap: SubmarineProviderRecord,
                 state: SubmarineProviderState) async -> SubmarineProviderInput? {
        let id = swap.swapID
        switch action {
        case .watchLock:
            await watchScript(swap)
            guard let lock = state.lock else { return nil }
            await watchLockOutput(lock, swapID: id)
            return await locate(lock)
        case .rebroadcastLock(let lock):
            // Signed by the client, so anyone may relay it; needed confirmed to claim.
            if await locate(lock) == .lockMissing {
                do {
                    _ = try await dependencies.chain.broadcast(lock.transaction)
                    log("submarine swap \(id): lock \(lock.txid) relayed again")
                } catch {
                    log("submarine swap \(id): relaying lock \(lock.txid) failed: \(error)")
                }
            }
            return nil
        case .preparePayment:
            return await preparePayment(swap)
        case .pay(let cltvLimit):
            pay(swap, cltvLimit: cltvLimit)
            return nil
        case .trackPayment:
            trackPayment(swap)
            return nil
        case .prepareClaim(let previous):
            guard let lock = state.lock, let preimage = Self.preimage(of: state) else { return nil }
            return await prepareClaim(swap, lock: lock, preimage: preimage, replacing: previous)
        case .broadcastClaim(let claim):
            return await broadcastClaim(claim, swapID: id)
        case .checkClaim(let claim):
            guard let lock = state.lock else { return nil }
            return await claimStatus(claim, lock: lock)
        case .raiseAlarm(let what):
            // One prefix an operator can grep for and a log watcher can page on.
            log("ALARM submarine swap \(id): \(what)")
            return nil
        case .prepareCooperativeClaim:
            guard let lock = state.lock else { return nil }
            return await prepareCooperativeClaim(swap, lock: lock)
        case .requestCooperativeClaim(let round):
            guard let preimage = Self.preimage(of: state) else { return nil }
            return await requestCooperativeClaim(swap, round: round, preimage: preimage)
        case .offerCooperativeRefund:
            await offerCooperativeRefund(swap)
            return nil
        }
    }

    static func preimage(of state: SubmarineProviderState) -> [UInt8]? {
        switch state {
        case .paid(_, let preimage), .coopRequested(_, let preimage, _), .claimBroadcast(_, let preimage, _): return preimage
        default: return nil
        }
    }
}
