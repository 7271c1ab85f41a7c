import Bitcoin

/// The transactions a backend fetched lately, by txid, at most `capacity` of them (the
/// oldest go first).
///
/// A node's wallet and its chain follower each fetch every new mempool transaction, the
/// second within a poll of the first; keeping the bytes the first fetch read spares the
/// backend and the node the second answer. Only a txid's bytes are kept: while a
/// transaction is in the mempool Core refuses another with the same txid, so what one
/// fetch read is what the next would.
struct RecentTransactions: Sendable {
    let capacity: Int
    private var byID: [TransactionID: Transaction] = [:]
    /// Insertion order, as a ring: `order[next]` is the oldest once the ring is full.
    private var order: [TransactionID] = []
    private var next = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a cache of no transactions")
        self.capacity = capacity
    }

    var count: Int { byID.count }

    subscript(txid: TransactionID) -> Transaction? { byID[txid] }

    mutating func insert(_ transaction: Transaction, as txid: TransactionID) {
        guard byID.updateValue(transaction, forKey: txid) == nil else { return }
        if order.count < capacity {
            order.append(txid)
        } else {
            byID[order[next]] = nil
            order[next] = txid
            next = (next + 1) % capacity
        }
    }
}
