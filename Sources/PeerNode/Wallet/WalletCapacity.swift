/// What the wallet can spend on a new transaction now, and what becomes spendable only
/// after a block, in satoshis. A provider prices its offers from `lockableSat`, and a
/// refusal for capacity names `waitingSat` (issue 14: one coin serves several swaps a
/// block, but not without end).
public struct WalletCapacity: Hashable, Sendable {
    /// The value of the coins a new transaction may spend: confirmed, unreserved, and the
    /// wallet's own unconfirmed change within its share of the cluster limits.
    public var lockableSat: Int64
    /// The rest of the confirmed and unconfirmed balance: change held back by the cluster
    /// share, coins from others still unconfirmed, coins reserved by a transaction about to
    /// be broadcast (its change comes back). A block (or the broadcast) frees it.
    public var waitingSat: Int64

    public init(lockableSat: Int64, waitingSat: Int64) {
        self.lockableSat = lockableSat
        self.waitingSat = waitingSat
    }
}
