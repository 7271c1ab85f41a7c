#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Bitcoin
import Synchronization

/// The hub's chain: a regtest block chain validated by Bitcoin Core's kernel, a mempool
/// judged like Core's, mining on demand, invalidation and reorgs. This is the API the
/// JSON-RPC layer answers from; every method is synchronous, short and safe to call from
/// any thread (one lock guards the state).
///
/// Errors: `MempoolRejection` for a transaction Core would refuse (with its reason and RPC
/// code), `ChainError` for a bad request or a hub bug (a block the kernel refused).
///
/// Tip changes are pushed to handlers registered with `onTipChange(_:)`.
public final class RegtestChain: Sendable {
    /// A tip-change handler: the new active tip's height and hash.
    public typealias TipChangeHandler = @Sendable (_ height: Int, _ hash: BlockHash) -> Void

    /// Internal, not private: the control extensions in other files use it too.
    let state: Mutex<ChainState>
    /// Tip-change handlers, in registration order.
    private let tipHandlers = Mutex<[TipChangeHandler]>([])
    /// The tip handlers last heard of. Held while they are called, so notifications are
    /// serialised: taken only after `state` is released, and the tip is read afresh under
    /// it, so handlers never hear of an older tip after a newer one.
    private let notifiedTip: Mutex<BlockHash?>

    /// Starts a chain holding only the regtest genesis block.
    /// - Parameters:
    ///   - libraryPath: libbitcoinkernel's path; `$PEERNODE_KERNEL_LIB` when nil.
    ///   - policy: mempool relay policy.
    ///   - clock: Unix seconds, for block times and mempool entry times.
    public init(libraryPath: String? = nil, policy: MempoolPolicy = MempoolPolicy(),
                clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) throws {
        let state = try ChainState(libraryPath: libraryPath, policy: policy, clock: clock)
        notifiedTip = Mutex(state.tipHash)
        self.state = Mutex(state)
    }

    // MARK: tip changes

    /// Registers `handler` to be called whenever the active tip changes: blocks mined, or a
    /// reorg (`invalidateBlock`, `reconsiderBlock`), whose tip may be lower or at the same
    /// height. Calls come after the chain's lock is released, on the thread that changed the
    /// tip, one at a time and in order; blocks mined in one `mine` call are one change, and
    /// changes that race may be reported as one (the newest). A handler may read the chain
    /// but must not change it (that would wait on itself).
    public func onTipChange(_ handler: @escaping TipChangeHandler) {
        tipHandlers.withLock { $0.append(handler) }
    }

    /// Tells the handlers of the current tip when it moved since they last heard.
    func notifyTipChange() {
        notifiedTip.withLock { notified in
            let (height, hash) = state.withLock { ($0.height, $0.tipHash) }
            guard hash != notified else { return }
            notified = hash
            for handler in tipHandlers.withLock({ $0 }) { handler(height, hash) }
        }
    }

    /// Releases the kernel and removes its temporary directory. Later calls fail with `ChainError.kernel`.
    public func close() {
        state.withLock { $0.kernel.close() }
    }

    // MARK: chain queries

    /// Height of the active tip (`getblockcount`).
    public var height: Int { state.withLock { $0.height } }
    /// Hash of the active tip (`getbestblockhash`).
    public var tipHash: BlockHash { state.withLock { $0.tipHash } }
    /// The active tip's height and hash, read together (a block mined between two reads
    /// would pair a height with another block's hash).
    public var best: (height: Int, hash: BlockHash) { state.withLock { ($0.height, $0.tipHash) } }
    /// The active tip with its metadata (`getblockchaininfo`).
    public var tip: ChainBlock { state.withLock { Self.describe($0.tipHash, in: $0)! } }

    /// The active chain's block hash at `height` (`getblockhash`), nil when out of range.
    public func blockHash(atHeight height: Int) -> BlockHash? {
        state.withLock { height >= 0 && height <= $0.height ? $0.active[height] : nil }
    }

    /// Any known block, active or not (`getblock`, `getblockheader`).
    public func block(_ hash: BlockHash) -> ChainBlock? {
        state.withLock { Self.describe(hash, in: $0) }
    }

    public func block(atHeight height: Int) -> ChainBlock? {
        state.withLock { height >= 0 && height <= $0.height ? Self.describe($0.active[height], in: $0) : nil }
    }

    /// The kernel's own view of its tip, to check the hub's mirror against it.
    public func kernelTip() throws -> (height: Int, hash: BlockHash) {
        try state.withLock { state in
            do { return (try state.kernel.height, try state.kernel.tipHash) } catch { throw ChainError.kernel("\(error)") }
        }
    }

    // MARK: mining

    /// Mines `count` blocks paying to `scriptPubKey` (`generatetoaddress`), each holding the
    /// best-paying mempool transactions and each accepted by the kernel before the next.
    @discardableResult
    public func mine(_ count: Int, to scriptPubKey: Script) throws -> [BlockHash] {
        // A failed call may still have mined some of the blocks.
        defer { notifyTipChange() }
        return try state.withLock { try $0.mine(count, to: scriptPubKey) }
    }

    // MARK: transactions

    /// `sendrawtransaction`: accepts `transaction` into the mempool and returns its txid. A
    /// transaction whose txid is already in the mempool returns that txid unchecked, as Core
    /// does. `maxFeeRate` is sat/kvB (nil: the policy's default, 0: no cap).
    @discardableResult
    public func submit(_ transaction: Transaction, maxFeeRate: Int64? = nil) throws -> TransactionID {
        try state.withLock { state in
            let txid = transaction.txid
            if state.mempool.entry(txid) != nil { return txid }
            _ = try state.accept(transaction, maxFeeRate: maxFeeRate ?? state.policy.defaultMaxFeeRate, testOnly: false)
            return txid
        }
    }

    /// `testmempoolaccept` for one transaction: the entry it would become, or the rejection.
    public func testAccept(_ transaction: Transaction, maxFeeRate: Int64? = nil) throws -> MempoolEntry {
        try state.withLock { state in
            try state.accept(transaction, maxFeeRate: maxFeeRate ?? state.policy.defaultMaxFeeRate, testOnly: true)
        }
    }

    /// A mempool or active-chain transaction (`getrawtransaction`).
    public func transaction(_ txid: TransactionID) -> ChainTransaction? {
        state.withLock { state in
            if let entry = state.mempool.entry(txid) {
                return ChainTransaction(transaction: entry.transaction, location: .mempool(entry))
            }
            guard let hash = state.transactionIndex[txid], let record = state.records[hash],
                  let transaction = record.block.transactions.first(where: { $0.txid == txid }) else { return nil }
            return ChainTransaction(transaction: transaction,
                                    location: .block(hash: hash, height: record.height,
                                                     confirmations: state.height - record.height + 1,
                                                     time: record.block.header.time))
        }
    }

    /// A transaction looked up in one given block (`getrawtransaction <txid> true <blockhash>`).
    public func transaction(_ txid: TransactionID, inBlock hash: BlockHash) -> ChainTransaction? {
        state.withLock { state in
            guard let record = state.records[hash],
                  let transaction = record.block.transactions.first(where: { $0.txid == txid }) else { return nil }
            let confirmations = state.isActive(hash) ? state.height - record.height + 1 : 0
            return ChainTransaction(transaction: transaction,
                                    location: .block(hash: hash, height: record.height, confirmations: confirmations,
                                                     time: record.block.header.time))
        }
    }

    /// `gettxspendingprevout`: the mempool transaction spending `outpoint` (Core asks its
    /// mempool first), else, unless `mempoolOnly`, the active-chain spender from the
    /// spender index; nil when neither spends it.
    public func spender(of outpoint: OutPoint, mempoolOnly: Bool) -> OutputSpender? {
        state.withLock { state in
            if let txid = state.mempool.spender(of: outpoint), let entry = state.mempool.entry(txid) {
                return OutputSpender(transaction: entry.transaction, blockHash: nil)
            }
            guard !mempoolOnly, let txid = state.spenderIndex[outpoint], let hash = state.transactionIndex[txid],
                  let transaction = state.records[hash]?.block.transactions.first(where: { $0.txid == txid }) else { return nil }
            return OutputSpender(transaction: transaction, blockHash: hash)
        }
    }

    /// `gettxout`: the unspent output, or nil when it is spent, unknown or (with
    /// `includeMempool`) spent by a mempool transaction.
    public func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool = true) -> UnspentOutput? {
        state.withLock { state in
            if includeMempool {
                if state.mempool.spender(of: outpoint) != nil { return nil }
                if let output = state.mempool.output(outpoint) {
                    return UnspentOutput(output: output, confirmations: 0, isCoinbase: false, bestBlock: state.tipHash)
                }
            }
            guard let coin = state.utxos.coin(outpoint) else { return nil }
            return UnspentOutput(output: coin.output, confirmations: state.height - coin.height + 1,
                                 isCoinbase: coin.isCoinbase, bestBlock: state.tipHash)
        }
    }

    /// Every mempool entry in acceptance order (`getrawmempool`).
    public func mempoolEntries() -> [MempoolEntryInfo] {
        state.withLock { state in state.mempool.orderedEntries.compactMap { state.mempool.info($0.txid) } }
    }

    /// One mempool entry (`getmempoolentry`).
    public func mempoolEntry(_ txid: TransactionID) -> MempoolEntryInfo? {
        state.withLock { $0.mempool.info(txid) }
    }

    // MARK: fee estimation

    public var feeEstimate: FeeEstimate {
        get { state.withLock { $0.feeEstimate } }
    }

    /// Sets what `estimatesmartfee` answers (hub control).
    public func setFeeEstimate(_ estimate: FeeEstimate) {
        state.withLock { $0.feeEstimate = estimate }
    }

    /// `estimatesmartfee <target>`: the set fee rate for any target, reported for at least 2
    /// blocks as Core does; no data gives blocks 0.
    public func estimateSmartFee(target: Int) -> SmartFeeEstimate {
        switch feeEstimate {
        case .noData: return SmartFeeEstimate(feeRate: nil, blocks: 0)
        case .feeRate(let rate): return SmartFeeEstimate(feeRate: rate, blocks: min(max(target, 2), 1008))
        }
    }

    // MARK: reorgs

    /// `invalidateblock`: the block and its descendants become invalid, the best remaining
    /// chain becomes active, and disconnected transactions return to the mempool when valid.
    public func invalidateBlock(_ hash: BlockHash) throws {
        defer { notifyTipChange() }
        try state.withLock { try $0.invalidate(hash) }
    }

    /// `reconsiderblock`: undoes `invalidateBlock` for the block, its ancestors and descendants.
    public func reconsiderBlock(_ hash: BlockHash) throws {
        defer { notifyTipChange() }
        try state.withLock { try $0.reconsider(hash) }
    }

    private static func describe(_ hash: BlockHash, in state: ChainState) -> ChainBlock? {
        guard let record = state.records[hash] else { return nil }
        let isActive = state.isActive(hash)
        let next = isActive && record.height < state.height ? state.active[record.height + 1] : nil
        var spentCoins: [[Coin]]?
        if isActive, let undo = state.undo[hash] {
            var cursor = 0
            spentCoins = record.block.transactions.map { transaction in
                guard !transaction.isCoinbase else { return [] }
                defer { cursor += transaction.inputs.count }
                return undo.spent[cursor..<cursor + transaction.inputs.count].map(\.coin)
            }
        }
        return ChainBlock(block: record.block, hash: hash, height: record.height,
                          confirmations: isActive ? state.height - record.height + 1 : -1,
                          medianTimePast: state.medianTimePast(of: hash), nextBlockHash: next,
                          isInvalidated: record.isInvalidated, spentCoins: spentCoins)
    }
}
