import Bitcoin

/// Hub controls that make the test world as harsh as a real miner and mempool can be:
/// mining a transaction the mempool refuses, holding one back from blocks, a smaller block,
/// a rising mempool minimum fee.
extension RegtestChain {
    /// `hub_mine_transaction`: mines one block holding `transaction`, bypassing mempool
    /// policy but not consensus. Throws `ConsensusRejection` for a transaction no block may
    /// hold; nothing changes then.
    @discardableResult
    public func mineTransaction(_ transaction: Transaction, to scriptPubKey: Script) throws -> BlockHash {
        defer { notifyTipChange() }
        return try state.withLock { try $0.mineTransaction(transaction, to: scriptPubKey) }
    }

    /// `hub_hold_transaction`: keeps a mempool transaction (and so its descendants) out of
    /// every block the hub mines until `release(_:)`. False when it is not in the mempool.
    @discardableResult
    public func hold(_ txid: TransactionID) -> Bool {
        state.withLock { state in
            guard state.mempool.entry(txid) != nil else { return false }
            state.held.insert(txid)
            return true
        }
    }

    /// `hub_release_transaction`: lets a held transaction into blocks again. False when it was not held.
    @discardableResult
    public func release(_ txid: TransactionID) -> Bool {
        state.withLock { $0.held.remove(txid) != nil }
    }

    /// The held transactions, sorted.
    public var heldTransactions: [TransactionID] {
        state.withLock { $0.held.sorted { $0.hex < $1.hex } }
    }

    /// Core's `-blockmaxweight` for the blocks the hub mines (`hub_setblockmaxweight`),
    /// coinbase reserve included. What does not fit waits in the mempool.
    public var blockMaxWeight: Int { state.withLock { $0.blockMaxWeight } }

    /// Sets the block weight limit; `ChainError.invalidRequest` outside
    /// `minimumBlockMaxWeight...RegtestParameters.maxBlockWeight`.
    public func setBlockMaxWeight(_ weight: Int) throws {
        guard (Self.minimumBlockMaxWeight...RegtestParameters.maxBlockWeight).contains(weight) else {
            throw ChainError.invalidRequest("blockmaxweight must be between \(Self.minimumBlockMaxWeight) and "
                + "\(RegtestParameters.maxBlockWeight)")
        }
        state.withLock { $0.blockMaxWeight = weight }
    }

    /// The smallest block weight limit: the coinbase's reserve plus room for one small transaction.
    public static let minimumBlockMaxWeight = RegtestParameters.coinbaseWeightReserve + 400

    /// Core's `mempoolminfee` (sat/kvB): the raised minimum, or the relay floor.
    public var mempoolMinFeeRate: Int64 { state.withLock { $0.effectiveMempoolMinFeeRate } }

    /// `hub_setmempoolminfee`: raises (or, at or below the relay floor, lifts) the mempool's
    /// minimum fee rate in sat/kvB. New transactions below it are refused with
    /// `mempool min fee not met`; those already in the mempool below it are evicted, lowest
    /// descendant score first. Returns the evicted txids.
    @discardableResult
    public func setMempoolMinFee(_ satPerKvB: Int64) -> [TransactionID] {
        state.withLock { $0.setMempoolMinFee(satPerKvB) }
    }

    /// `submitpackage`: a child with its unconfirmed parents, child last (shape checked by
    /// the caller); a parent below the fee floors gets in on the package's fee rate.
    /// `maxFeeRate` is sat/kvB (0: no cap).
    public func submitPackage(_ transactions: [Transaction], maxFeeRate: Int64) throws -> PackageSubmission {
        try state.withLock { try $0.submitPackage(transactions, maxFeeRate: maxFeeRate) }
    }
}
