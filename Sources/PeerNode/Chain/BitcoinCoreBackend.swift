import Bitcoin
import HTLC
import Synchronization
import Transport

/// `ChainBackend` over Bitcoin Core's JSON-RPC (the hub serves the same API). Call
/// `checkNetwork()` at start: a node must refuse a backend on another chain before it
/// reads a single block from it.
///
/// `transaction(_:)` finds confirmed transactions only when Core runs with `-txindex`
/// (the hub always can); without it, Core answers -5 and the result is nil.
public final class BitcoinCoreBackend: ChainBackend {
    public let rpc: BitcoinCoreRPC
    /// The network the node runs on.
    public let network: Network
    /// The tip `tip()` last read: while `getbestblockhash` still names it, its height is
    /// known without asking (a block's height never changes).
    private let lastTip = Mutex<ChainTip?>(nil)
    /// What `mempoolTransaction(_:)` fetched lately: the wallet's and the follower's fetch
    /// of the same new transaction cost one `getrawtransaction`.
    private let recentMempool = Mutex(RecentTransactions(capacity: 4_096))

    public init(rpc: BitcoinCoreRPC, network: Network) {
        self.rpc = rpc
        self.network = network
    }

    /// Core's RPC error codes the backend interprets.
    public enum ErrorCode {
        /// RPC_INVALID_ADDRESS_OR_KEY: unknown transaction or block.
        public static let invalidAddressOrKey = -5
        /// RPC_TRANSACTION_ERROR: missing or spent inputs, fee above `maxfeerate`.
        public static let transactionError = -25
        /// RPC_TRANSACTION_REJECTED: a policy or consensus rule.
        public static let transactionRejected = -26
        /// RPC_TRANSACTION_ALREADY_IN_UTXO_SET: the transaction is already confirmed.
        public static let transactionAlreadyInChain = -27
        /// The codes with which `sendrawtransaction` refuses a transaction.
        public static let refusals: Set<Int> = [transactionError, transactionRejected, transactionAlreadyInChain]
    }

    /// `getblockchaininfo`, refusing a backend whose chain is not the node's network.
    @discardableResult
    public func checkNetwork() async throws(ChainBackendError) -> BlockchainInfo {
        let info = try await blockchainInfo()
        guard BitcoinCoreChain.matches(info.chain, network: network) else {
            throw .wrongNetwork(expected: BitcoinCoreChain.names(for: network).joined(separator: " or "),
                                actual: info.chain)
        }
        return info
    }

    public func blockchainInfo() async throws(ChainBackendError) -> BlockchainInfo {
        try BitcoinCoreDecoding.blockchainInfo(try await rpc.call("getblockchaininfo"))
    }

    /// `getbestblockhash`, then, only when the hash is not the last one read, its height from
    /// `getblockheader`: the pair is consistent (the height is that block's, whatever came
    /// after), where `getblockcount` then `getbestblockhash` could straddle a new block. A
    /// chain follower asks this every poll; most polls find no new block and cost one
    /// 64-digit answer instead of `getblockchaininfo`'s whole object.
    public func tip() async throws(ChainBackendError) -> ChainTip {
        let hash = try await bestBlockHash()
        if let last = lastTip.withLock({ $0 }), last.hash == hash { return last }
        let tip = ChainTip(height: try await blockHeight(of: hash), hash: hash)
        lastTip.withLock { $0 = tip }
        return tip
    }

    /// `getblockheader <hash> true`: the block's height (active chain or not).
    public func blockHeight(of hash: BlockHash) async throws(ChainBackendError) -> Int {
        try BitcoinCoreDecoding.blockHeight(try await rpc.call("getblockheader", [.string(hash.hex), .bool(true)]),
                                            expected: hash)
    }

    /// `getblockcount`.
    public func blockCount() async throws(ChainBackendError) -> Int {
        try BitcoinCoreDecoding.int(try await rpc.call("getblockcount"), "getblockcount", "result")
    }

    /// `getbestblockhash`.
    public func bestBlockHash() async throws(ChainBackendError) -> BlockHash {
        try BitcoinCoreDecoding.blockHash(try await rpc.call("getbestblockhash"), "getbestblockhash", "result")
    }

    public func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash {
        let result = try await rpc.call("getblockhash", [.integer(height)])
        return try BitcoinCoreDecoding.blockHash(result, "getblockhash", "result")
    }

    /// `getblock <hash> 0`: the raw block, decoded by our own parser (no verbose JSON).
    public func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block {
        let result = try await rpc.call("getblock", [.string(hash.hex), .integer(0)])
        return try BitcoinCoreDecoding.block(result, expected: hash)
    }

    public func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> ChainTransaction? {
        guard let result = try await rawTransaction(txid, verbose: true) else { return nil }
        return try BitcoinCoreDecoding.chainTransaction(result, expected: txid)
    }

    /// `getrawtransaction <txid> <verbose>`'s result; nil for Core's "No such mempool or
    /// blockchain transaction" (-5): unknown is an answer, not a failure.
    private func rawTransaction(_ txid: TransactionID, verbose: Bool) async throws(ChainBackendError) -> JSONValue? {
        do {
            return try await rpc.call("getrawtransaction", [.string(txid.hex), .bool(verbose)])
        } catch .rpc(code: ErrorCode.invalidAddressOrKey, message: _) {
            return nil
        }
    }

    /// `sendrawtransaction` with Core's default fee cap. A transaction already in the
    /// mempool returns its txid, as Core does; a refusal is `.rejected` with Core's code and
    /// message (`bad-txns-inputs-missingorspent`, `insufficient fee, rejecting
    /// replacement …`, `non-final`).
    public func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID {
        let result: JSONValue
        do {
            result = try await rpc.call("sendrawtransaction", [.string(transaction.serialized.hex)])
        } catch .rpc(let code, let message) where ErrorCode.refusals.contains(code) {
            throw .rejected(code: code, reason: message)
        }
        let txid = try BitcoinCoreDecoding.transactionID(result, "sendrawtransaction")
        guard txid == transaction.txid else { throw BitcoinCoreDecoding.malformed("sendrawtransaction", "txid") }
        return txid
    }

    public func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance {
        let result = try await rpc.call("testmempoolaccept", [.array([.string(transaction.serialized.hex)])])
        guard let elements = result.arrayValue else { throw BitcoinCoreDecoding.malformed("testmempoolaccept", "result") }
        for element in elements {
            let acceptance = try BitcoinCoreDecoding.mempoolAcceptance(element)
            if acceptance.txid == transaction.txid { return acceptance }
        }
        throw BitcoinCoreDecoding.malformed("testmempoolaccept", "entry for the transaction")
    }

    /// `getrawtransaction <txid> false`: the hex alone. Every watching node fetches every
    /// new mempool transaction once, and the verbose object (inputs, outputs, scripts
    /// decoded) costs Core to write and the node to parse several times the bytes.
    /// A transaction fetched in the last few thousand is answered from memory (`RecentTransactions`).
    public func mempoolTransaction(_ txid: TransactionID) async throws(ChainBackendError) -> Transaction? {
        if let known = recentMempool.withLock({ $0[txid] }) { return known }
        guard let result = try await rawTransaction(txid, verbose: false) else { return nil }
        return try keptTransaction(result, txid: txid)
    }

    /// A `getrawtransaction <txid> false` result decoded (its txid checked) and kept in
    /// `RecentTransactions` for the next fetch.
    private func keptTransaction(_ result: JSONValue, txid: TransactionID) throws(ChainBackendError) -> Transaction {
        let transaction = try BitcoinCoreDecoding.rawTransaction(result, expected: txid)
        recentMempool.withLock { $0.insert(transaction, as: txid) }
        return transaction
    }

    /// The txids `RecentTransactions` does not hold are asked in JSON-RPC batches of
    /// `getrawtransaction <txid> false`, `batchLimit` at a time: a poll that finds dozens of
    /// new transactions (a busy mempool, or a node's first look at it) costs a request per
    /// batch instead of one per transaction. Core's -5 for one of them means it is gone.
    public func mempoolTransactions(_ txids: [TransactionID]) async throws(ChainBackendError) -> [TransactionID: Transaction] {
        var found: [TransactionID: Transaction] = [:]
        var missing: [TransactionID] = []
        recentMempool.withLock { recent in
            for txid in txids {
                if let known = recent[txid] { found[txid] = known } else { missing.append(txid) }
            }
        }
        var start = missing.startIndex
        while start < missing.endIndex {
            let chunk = missing[start..<min(start + Self.batchLimit, missing.endIndex)]
            start = chunk.endIndex
            let replies = try await rpc.batch(chunk.map { ("getrawtransaction", [.string($0.hex), .bool(false)]) })
            for (txid, reply) in zip(chunk, replies) {
                let result: JSONValue
                switch reply {
                case .success(let value): result = value
                case .failure(.rpc(code: ErrorCode.invalidAddressOrKey, message: _)): continue
                case .failure(let error): throw error
                }
                found[txid] = try keptTransaction(result, txid: txid)
            }
        }
        return found
    }

    /// At most this many transactions per batch. A standard transaction weighs at most
    /// 400,000 units, so its hex is at most 800 kB, and a whole batch's answer stays under
    /// the HTTP client's 16 MiB limit for any mempool Core keeps.
    static let batchLimit = 16

    public func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID] {
        try BitcoinCoreDecoding.transactionIDs(try await rpc.call("getrawmempool"), "getrawmempool")
    }

    public func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo? {
        let result = try await rpc.call("gettxout", [.string(outpoint.txid.hex), .integer(outpoint.index),
                                                     .bool(includeMempool)])
        return try BitcoinCoreDecoding.unspentOutput(result)
    }

    public func mempoolDescendantCount(_ txid: TransactionID) async throws(ChainBackendError) -> Int? {
        let result: JSONValue
        do {
            result = try await rpc.call("getmempoolentry", [.string(txid.hex)])
        } catch .rpc(code: ErrorCode.invalidAddressOrKey, message: _) {
            // "Transaction not in mempool".
            return nil
        }
        guard let count = result["descendantcount"]?.int64Value, count >= 1 else {
            throw BitcoinCoreDecoding.malformed("getmempoolentry", "descendantcount")
        }
        return Int(count)
    }

    public func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate? {
        try await smartFeeEstimate(targetBlocks: targetBlocks).feeRate
    }

    /// `estimatesmartfee` with its full answer. Core accepts targets 1...1008.
    public func smartFeeEstimate(targetBlocks: Int, mode: CoreFeeEstimate.Mode = .unset) async throws(ChainBackendError) -> CoreFeeEstimate {
        var params: [JSONValue] = [.integer(targetBlocks)]
        if mode != .unset { params.append(.string(mode.rawValue)) }
        return try BitcoinCoreDecoding.feeEstimate(try await rpc.call("estimatesmartfee", params))
    }
}
