import Bitcoin

/// A block as the hub knows it, with what `getblock`/`getblockheader` report beyond its bytes.
public struct ChainBlock: Sendable {
    public let block: Block
    public let hash: BlockHash
    public let height: Int
    /// Tip height - height + 1 in the active chain; -1 for a block off it (as Core reports).
    public let confirmations: Int
    /// Median time of this block and its 10 predecessors.
    public let medianTimePast: Int64
    /// The active chain's next block, when this one is active and not the tip.
    public let nextBlockHash: BlockHash?
    /// Marked invalid by `invalidateBlock` (itself or an ancestor).
    public let isInvalidated: Bool
    /// For an active block: the coins each transaction spent, in input order (empty for the
    /// coinbase), for fees and `prevout` objects. Nil off the active chain.
    public let spentCoins: [[Coin]]?

    /// Cumulative work: every regtest block at 0x207fffff is worth 2 units, genesis included.
    public var chainWork: Int { (height + 1) * 2 }
}

/// Where a transaction the hub knows about sits.
public struct ChainTransaction: Sendable {
    public enum Location: Sendable {
        case mempool(MempoolEntry)
        case block(hash: BlockHash, height: Int, confirmations: Int, time: UInt32)
    }
    public let transaction: Transaction
    public let location: Location
}

/// `gettxout`'s answer.
public struct UnspentOutput: Sendable {
    public let output: TransactionOutput
    /// 0 for an output of a mempool transaction.
    public let confirmations: Int
    public let isCoinbase: Bool
    /// The tip the answer was computed at.
    public let bestBlock: BlockHash
}

/// The fee estimate the hub serves, set by its controller rather than learned.
public enum FeeEstimate: Equatable, Sendable {
    /// `estimatesmartfee` answers "Insufficient data or no feerate found".
    case noData
    /// A fee rate in sat/kvB.
    case feeRate(Int64)
}

/// `estimatesmartfee`'s answer: a fee rate (sat/kvB) or none, and the target it is for.
public struct SmartFeeEstimate: Equatable, Sendable {
    public let feeRate: Int64?
    /// Core answers for at least 2 blocks and 0 when it has no data.
    public let blocks: Int
}
