import Bitcoin

/// What the wallet knows of the chain and the mempool, as a pure value: its coins with
/// their heights, which unconfirmed transaction spends which coin, its unconfirmed and
/// confirmed transactions, and the coins reserved by transactions being broadcast.
///
/// Blocks are applied in order and undone from the tip, so a reorg is "undo until the
/// fork, apply the new branch". Undo data is kept for the last `undoDepth` blocks; a
/// deeper reorg makes the wallet start over from its birthday.
///
/// No I/O: the `Wallet` actor feeds it blocks and mempool transactions from the backend.
public struct WalletState: Sendable {
    public let birthdayHeight: Int
    public let undoDepth: Int
    /// The last block applied; nil before the birthday block.
    public private(set) var tip: ChainTip?
    /// Outputs paying the wallet that no confirmed transaction spends.
    public private(set) var coins: [OutPoint: WalletCoin] = [:]
    /// Coins spent by an unconfirmed transaction, and which one.
    public private(set) var spenders: [OutPoint: TransactionID] = [:]
    /// Unconfirmed transactions that touch the wallet.
    public private(set) var pending: [TransactionID: WalletTransaction] = [:]
    /// Confirmed transactions that touch the wallet, with their heights.
    public private(set) var confirmed: [TransactionID: WalletTransaction] = [:]
    /// Coins picked by a transaction that is being (or was) broadcast.
    public private(set) var reservations: [OutPoint: TransactionID] = [:]

    /// Applied block hashes, from the birthday up to the tip.
    private var blockHashes: [BlockHash] = []
    private var undo: [BlockHash: [TransactionUndo]] = [:]

    /// What applying one transaction of a block changed, to reverse it exactly.
    private struct TransactionUndo: Sendable {
        let record: WalletTransaction
        let isCoinbase: Bool
        /// Wallet coins it spent, as they were.
        let spent: [WalletCoin]
        /// Wallet outputs it created (or confirmed).
        let created: [OutPoint]
    }

    public init(birthdayHeight: Int, undoDepth: Int = 144) {
        self.birthdayHeight = max(birthdayHeight, 0)
        self.undoDepth = max(undoDepth, 1)
    }

    /// The same wallet started over from `height`: no block applied, the coins reserved by
    /// transactions being broadcast still reserved (so no second transaction picks them
    /// while the blocks are read again).
    public func restarted(fromHeight height: Int) -> WalletState {
        var fresh = WalletState(birthdayHeight: height, undoDepth: undoDepth)
        fresh.reservations = reservations
        return fresh
    }

    /// The height of the next block to apply.
    public var nextHeight: Int { tip.map { $0.height + 1 } ?? birthdayHeight }

    /// The hash this state applied at `height`, nil outside what it has applied.
    public func blockHash(atHeight height: Int) -> BlockHash? {
        let offset = height - birthdayHeight
        return offset >= 0 && offset < blockHashes.count ? blockHashes[offset] : nil
    }

    // MARK: blocks

    /// Applies the block at `nextHeight`, which must extend `tip`. Confirms the wallet's
    /// pending transactions it holds, drops those it double-spends, records new coins and
    /// removes spent ones.
    public mutating func applyBlock(_ block: Block, hash: BlockHash, height: Int, keys: inout WalletKeys) {
        precondition(height == nextHeight, "block \(height) applied when \(nextHeight) is next")
        precondition(tip == nil || block.header.previousBlockHash == tip?.hash, "block \(height) does not extend the tip")
        var entries: [TransactionUndo] = []
        for transaction in block.transactions {
            let txid = transaction.txid
            var spent: [WalletCoin] = []
            if !transaction.isCoinbase {
                for input in transaction.inputs {
                    guard let coin = coins[input.previousOutput] else { continue }
                    // Another unconfirmed spend of this coin lost the race to this block.
                    if let other = spenders[input.previousOutput], other != txid { dropPending(other) }
                    coins[input.previousOutput] = nil
                    spenders[input.previousOutput] = nil
                    reservations[input.previousOutput] = nil
                    spent.append(coin)
                }
            }
            var created: [OutPoint] = []
            for (index, output) in transaction.outputs.enumerated() {
                guard let path = keys.markUsed(output.scriptPubKey) else { continue }
                let outPoint = OutPoint(txid: txid, index: UInt32(index))
                if coins[outPoint] != nil {
                    coins[outPoint]!.height = height
                } else {
                    coins[outPoint] = WalletCoin(outPoint: outPoint, output: output, path: path, height: height,
                                                 isCoinbase: transaction.isCoinbase)
                }
                created.append(outPoint)
            }
            let previous = pending.removeValue(forKey: txid)
            guard previous != nil || !spent.isEmpty || !created.isEmpty else { continue }
            let ownInputs = !transaction.isCoinbase && spent.count == transaction.inputs.count
            var record = WalletTransaction(transaction: transaction,
                                           spentOutputs: previous?.spentOutputs ?? (ownInputs ? spent.map(\.output) : nil))
            record.height = height
            confirmed[txid] = record
            entries.append(TransactionUndo(record: record, isCoinbase: transaction.isCoinbase, spent: spent, created: created))
        }
        undo[hash] = entries
        blockHashes.append(hash)
        tip = ChainTip(height: height, hash: hash)
        // Undo data older than undoDepth is dropped; a reorg that deep means a rescan.
        if blockHashes.count > undoDepth { undo[blockHashes[blockHashes.count - 1 - undoDepth]] = nil }
    }

    /// Undoes the tip block: its transactions become unconfirmed again (a node returns them
    /// to its mempool; the next mempool pass drops those it did not keep), coinbase outputs
    /// vanish, spent coins come back. Returns false, changing nothing, when the undo data is
    /// gone (the caller then rescans from the birthday).
    @discardableResult
    public mutating func undoTip() -> Bool {
        guard let tip, let entries = undo[tip.hash] else { return false }
        for entry in entries.reversed() {
            let txid = entry.record.txid
            confirmed[txid] = nil
            for outPoint in entry.created.reversed() {
                if entry.isCoinbase {
                    if let spender = spenders[outPoint] { dropPending(spender) }
                    coins[outPoint] = nil
                } else {
                    coins[outPoint]?.height = nil
                }
            }
            for coin in entry.spent {
                coins[coin.outPoint] = coin
                spenders[coin.outPoint] = txid
            }
            if !entry.isCoinbase {
                var record = entry.record
                record.height = nil
                pending[txid] = record
            }
        }
        undo[tip.hash] = nil
        blockHashes.removeLast()
        self.tip = blockHashes.last.map { ChainTip(height: tip.height - 1, hash: $0) }
        return true
    }

    // MARK: the mempool

    /// Applies an unconfirmed transaction when it spends a wallet coin or pays a wallet key;
    /// an earlier unconfirmed spend of the same coin is dropped (it was replaced). Returns
    /// whether the transaction touches the wallet.
    @discardableResult
    public mutating func applyMempoolTransaction(_ transaction: Transaction, keys: inout WalletKeys) -> Bool {
        let txid = transaction.txid
        guard pending[txid] == nil, confirmed[txid] == nil, !transaction.isCoinbase else { return false }
        let ownInputs = transaction.inputs.filter { coins[$0.previousOutput] != nil }.map(\.previousOutput)
        var paid: [(OutPoint, TransactionOutput, WalletKeyPath)] = []
        for (index, output) in transaction.outputs.enumerated() {
            if let path = keys.markUsed(output.scriptPubKey) {
                paid.append((OutPoint(txid: txid, index: UInt32(index)), output, path))
            }
        }
        guard !ownInputs.isEmpty || !paid.isEmpty else { return false }
        let spentOutputs = ownInputs.count == transaction.inputs.count ? ownInputs.map { coins[$0]!.output } : nil
        for outPoint in ownInputs {
            if let other = spenders[outPoint], other != txid { dropPending(other) }
        }
        for outPoint in ownInputs { spenders[outPoint] = txid }
        for (outPoint, output, path) in paid {
            coins[outPoint] = WalletCoin(outPoint: outPoint, output: output, path: path, height: nil, isCoinbase: false)
        }
        pending[txid] = WalletTransaction(transaction: transaction, spentOutputs: spentOutputs)
        return true
    }

    /// Forgets an unconfirmed transaction (replaced, evicted, or conflicted by a block) and
    /// every unconfirmed wallet transaction spending its outputs; the coins it spent become
    /// spendable again and its reservations are released.
    public mutating func dropPending(_ txid: TransactionID) {
        guard let record = pending.removeValue(forKey: txid) else { return }
        for input in record.transaction.inputs {
            if spenders[input.previousOutput] == txid { spenders[input.previousOutput] = nil }
            if reservations[input.previousOutput] == txid { reservations[input.previousOutput] = nil }
        }
        for index in record.transaction.outputs.indices {
            let outPoint = OutPoint(txid: txid, index: UInt32(index))
            guard let coin = coins[outPoint], coin.height == nil else { continue }
            coins[outPoint] = nil
            reservations[outPoint] = nil
            if let child = spenders[outPoint] { dropPending(child) }
        }
    }

    // MARK: reservations

    /// Marks `outPoints` as taken by `txid` so no other transaction selects them.
    public mutating func reserve(_ outPoints: [OutPoint], for txid: TransactionID) {
        for outPoint in outPoints { reservations[outPoint] = txid }
    }

    /// Releases what `txid` reserved (its broadcast failed).
    public mutating func releaseReservations(of txid: TransactionID) {
        reservations = reservations.filter { $0.value != txid }
    }

    // MARK: queries

    /// Coins a new transaction may spend: unspent, unreserved, mature, with at least
    /// `minimumConfirmations` (0 also admits outputs of the wallet's own unconfirmed
    /// transactions, never someone else's). Largest first.
    ///
    /// An unconfirmed coin is admitted only while the unconfirmed wallet transactions
    /// connected to it (`unconfirmedCluster`) number fewer than `clusterShare` and weigh
    /// less than `clusterWeightShare`, so the new transaction stays within the wallet's share
    /// of Core v31's cluster limits.
    public func spendableCoins(minimumConfirmations: Int, clusterShare: Int = .max,
                               clusterWeightShare: Int = .max) -> [WalletCoin] {
        let tipHeight = nextHeight - 1
        return coins.values.filter { coin in
            guard spenders[coin.outPoint] == nil, reservations[coin.outPoint] == nil,
                  coin.isMature(tipHeight: tipHeight) else { return false }
            if coin.height == nil {
                guard minimumConfirmations <= 0, pending[coin.outPoint.txid]?.isOwn == true else { return false }
                let cluster = unconfirmedCluster(of: [coin.outPoint.txid])
                return cluster.count < clusterShare && weight(of: cluster) < clusterWeightShare
            }
            return coin.confirmations(tipHeight: tipHeight) >= minimumConfirmations
        }.sorted(by: WalletCoin.largestFirst)
    }

    /// The unconfirmed wallet transactions connected to `txids` by spending one another's
    /// outputs: the part of their mempool cluster the wallet sees (others may have added
    /// children to it, a claim of a lock for one).
    public func unconfirmedCluster(of txids: Set<TransactionID>) -> Set<TransactionID> {
        var found = Set<TransactionID>()
        var queue = Array(txids.filter { pending[$0] != nil })
        while let next = queue.popLast() {
            guard found.insert(next).inserted, let record = pending[next] else { continue }
            queue.append(contentsOf: record.transaction.inputs.map(\.previousOutput.txid).filter { pending[$0] != nil })
            queue.append(contentsOf: pendingChildren(of: next))
        }
        return found
    }

    /// The summed weight of `txids` that the wallet holds unconfirmed.
    public func weight(of txids: Set<TransactionID>) -> Int {
        txids.reduce(0) { $0 + (pending[$1]?.transaction.weight ?? 0) }
    }

    /// Sums every unspent coin into its bucket (see `WalletBalance`).
    public var balance: WalletBalance {
        let tipHeight = nextHeight - 1
        var balance = WalletBalance()
        for coin in coins.values where spenders[coin.outPoint] == nil {
            if coin.height == nil {
                balance.unconfirmed += coin.value
            } else if coin.isMature(tipHeight: tipHeight) {
                balance.confirmed += coin.value
            } else {
                balance.immature += coin.value
            }
        }
        return balance
    }

    /// Unconfirmed wallet transactions spending outputs of `txid`.
    public func pendingChildren(of txid: TransactionID) -> [TransactionID] {
        guard let record = pending[txid] ?? confirmed[txid] else { return [] }
        return record.transaction.outputs.indices.compactMap { spenders[OutPoint(txid: txid, index: UInt32($0))] }
    }
}

extension WalletCoin {
    /// Larger value first; equal values by outpoint, so selection is deterministic.
    static func largestFirst(_ lhs: WalletCoin, _ rhs: WalletCoin) -> Bool {
        if lhs.value != rhs.value { return lhs.value > rhs.value }
        if lhs.outPoint.txid != rhs.outPoint.txid {
            return lhs.outPoint.txid.bytes.lexicographicallyPrecedes(rhs.outPoint.txid.bytes)
        }
        return lhs.outPoint.index < rhs.outPoint.index
    }
}
