import Bitcoin
import HTLC
import Offers

/// Waits on the provider's side of a swap: its lock (from its status answers, then the
/// chain for the value) and, when the kit never claims, its refund (the lock's outpoint
/// spent in the mempool). Polls, bounded by the kit's `--wait-seconds`.
struct LockWatcher {
    let session: ProviderSession
    let chain: KitChain
    let waitSeconds: UInt64
    let log: @Sendable (String) -> Void

    static let pollNanoseconds: UInt64 = 200_000_000

    /// The lock once the provider reports it and the chain (mempool included) holds it.
    func lock(of swap: OpenSwap) async throws(KitError) -> LockOutput {
        var last = ""
        for _ in 0..<polls {
            let snapshot = try await session.status(of: swap.swapID)
            if let reference = snapshot.lock {
                let txid: TransactionID
                do { txid = try TransactionID(hex: reference.txid) } catch { throw KitError("lock_txid \(reference.txid): \(error)") }
                let outPoint = OutPoint(txid: txid, index: reference.vout)
                if let value = try await chain.unspentValue(outPoint) {
                    log("lock \(outPoint) holds \(value) sat (provider status \(snapshot.status.rawValue))")
                    return LockOutput(outPoint: outPoint, value: value)
                }
            } else if snapshot.status.isFinal {
                throw KitError("the provider ended swap \(swap.swapID) as \(snapshot.status.rawValue) without locking")
            }
            last = snapshot.status.rawValue
            try? await Task.sleep(nanoseconds: Self.pollNanoseconds)
        }
        throw KitError("no lock for swap \(swap.swapID) within \(waitSeconds) s (provider status \(last))")
    }

    /// Waits until something spends the lock: the spending transaction when it is caught
    /// in the mempool, nil when it was already in a block by the time the kit looked.
    func spend(of lock: LockOutput, timeoutHeight: UInt32) async throws(KitError) -> Transaction? {
        log("waiting for the provider's refund of \(lock.outPoint) (timeout height \(timeoutHeight))")
        var missed = 0
        for _ in 0..<polls {
            if try await chain.unspentValue(lock.outPoint) == nil {
                if let spender = try await chain.mempoolSpender(of: lock.outPoint) { return spender }
                // Spent, yet no spender found: a fee bump may have replaced the refund
                // between listing the mempool and reading it. Only when that keeps
                // happening for a second is the spend taken to be in a block already.
                missed += 1
                if missed >= 5 { return nil }
            }
            try? await Task.sleep(nanoseconds: Self.pollNanoseconds)
        }
        throw KitError("the lock \(lock.outPoint) was not spent within \(waitSeconds) s")
    }

    private var polls: UInt64 { waitSeconds * 1_000_000_000 / Self.pollNanoseconds }
}
