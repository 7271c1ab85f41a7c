/// The wallet's money by how far it can be trusted, in satoshis. Each coin counts in
/// exactly one bucket; a coin spent by an unconfirmed transaction counts in none (the
/// change of that transaction counts as unconfirmed instead).
public struct WalletBalance: Hashable, Sendable, CustomStringConvertible {
    /// Confirmed, unspent, and (for coinbase outputs) mature.
    public var confirmed: Int64
    /// Outputs of transactions still in the mempool, ours (change) or others' (receipts).
    public var unconfirmed: Int64
    /// Coinbase outputs with fewer than 100 confirmations.
    public var immature: Int64

    public init(confirmed: Int64 = 0, unconfirmed: Int64 = 0, immature: Int64 = 0) {
        self.confirmed = confirmed
        self.unconfirmed = unconfirmed
        self.immature = immature
    }

    public var total: Int64 { confirmed + unconfirmed + immature }

    public var description: String {
        "confirmed \(confirmed) sat, unconfirmed \(unconfirmed) sat, immature \(immature) sat"
    }
}
