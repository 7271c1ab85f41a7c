import Synchronization

/// The Lightning amounts the provider has promised to pay and not yet sent: one entry per
/// submarine swap from its accept until its payment leaves (then LND's own balance shows
/// it) or the swap ends unpaid. The desk subtracts the total from what LND can send, so an
/// offer's maximum never counts the same balance twice (issue 16: the risk limits count
/// Lightning outbound liquidity).
public final class SubmarineLiquidity: Sendable {
    private let promised = Mutex<[String: Int64]>([:])

    public init() {}

    /// The sum of every promise now, in sat (invoice amount plus its routing reserve).
    public var promisedSat: Int64 { promised.withLock { $0.values.reduce(0, +) } }

    /// Promises `amountSat` for `swapID`, unless the promises of the other swaps leave less
    /// than that of `availableSat`; true when it is recorded.
    func promise(_ amountSat: Int64, for swapID: String, within availableSat: Int64) -> Bool {
        promised.withLock { entries in
            let others = entries.filter { $0.key != swapID }.values.reduce(0, +)
            guard others + amountSat <= availableSat else { return false }
            entries[swapID] = amountSat
            return true
        }
    }

    /// Records a promise whatever the balance (a swap resumed after a restart).
    func restore(_ amountSat: Int64, for swapID: String) {
        promised.withLock { $0[swapID] = amountSat }
    }

    func release(_ swapID: String) {
        promised.withLock { _ = $0.removeValue(forKey: swapID) }
    }
}
