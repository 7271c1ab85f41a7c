import Bitcoin
import HTLC

/// What the node needs from a Bitcoin full node. Production talks to Bitcoin Core over
/// JSON-RPC; tests talk to the regtest hub, which serves the same API, so engines and the
/// wallet run the same code against both. Every call may suspend on I/O; none blocks.
public protocol ChainBackend: Sendable {
    /// The active chain's tip.
    func tip() async throws(ChainBackendError) -> ChainTip
    /// The hash of the active-chain block at `height`.
    func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash
    /// A whole block by hash (for following the chain and finding our outputs and spends).
    func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block
    /// A transaction from the mempool or (with Core's `-txindex`, or a block hint) the chain;
    /// nil when the backend does not know it.
    func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> ChainTransaction?
    /// Relays a transaction; a refusal carries Core's code and reason.
    func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID
    /// Whether the mempool would accept the transaction, without relaying it.
    func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance
    /// The txids in the mempool.
    func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID]
    /// A transaction listed by `mempoolTransactionIDs`, bytes only; nil when the backend no
    /// longer has it there. It may be one mined since the list was read (Core with
    /// `-txindex` still finds it): the follower reports it as unconfirmed, then its block.
    /// A backend may answer from the bytes it fetched lately for the same txid (a listed
    /// txid's transaction does not change), so it may also return one the mempool has just
    /// dropped; the next listing, without it, tells the caller.
    func mempoolTransaction(_ txid: TransactionID) async throws(ChainBackendError) -> Transaction?
    /// `mempoolTransaction(_:)` of each of `txids`, by txid; one the backend no longer has
    /// is left out. A backend may fetch them together (Bitcoin Core: one JSON-RPC batch),
    /// so a poll that finds many new transactions costs one request, not one each.
    func mempoolTransactions(_ txids: [TransactionID]) async throws(ChainBackendError) -> [TransactionID: Transaction]
    /// An unspent output (gettxout), from the chain or, when asked, the mempool.
    func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo?
    /// The backend's fee estimate for confirmation within `targetBlocks`; nil when it has none.
    func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate?
    /// `getmempoolentry`'s `descendantcount`: the mempool transactions spending from
    /// `txid`, directly or not, counting itself (as Core does); nil when it is not in the
    /// mempool. A transaction with more than 1 has children another replacement would evict.
    func mempoolDescendantCount(_ txid: TransactionID) async throws(ChainBackendError) -> Int?

    /// Scripts whose transactions `block` and the mempool calls must show. Bitcoin Core
    /// sees every transaction and ignores this; an Electrum server answers only about the
    /// scripts it is asked about, so the follower and the wallet name theirs before they
    /// read blocks. Returns which newly named scripts already have transactions, and the
    /// lowest height holding one (a wallet extends its keys past the used ones, then
    /// rescans); `.none` on a backend that sees every block.
    func watch(scripts: Set<Script>) async throws(ChainBackendError) -> ScriptHistorySummary
    /// Outpoints whose spends must show: Electrum finds a spend in the history of the
    /// spent output's script, which the backend looks up from the funding transaction.
    func watch(outpoints: Set<OutPoint>) async throws(ChainBackendError)
    /// Whether `block` returns whole blocks. False on Electrum, whose blocks hold only the
    /// watched scripts' transactions: enough to follow them, not to scan (`peernode recover`).
    var servesWholeBlocks: Bool { get }
}

extension ChainBackend {
    /// From `transaction(_:)`, unconfirmed only.
    public func mempoolTransaction(_ txid: TransactionID) async throws(ChainBackendError) -> Transaction? {
        guard let found = try await transaction(txid), found.confirmations == 0 else { return nil }
        return found.transaction
    }
    /// One `mempoolTransaction(_:)` after another.
    public func mempoolTransactions(_ txids: [TransactionID]) async throws(ChainBackendError) -> [TransactionID: Transaction] {
        var found: [TransactionID: Transaction] = [:]
        for txid in txids {
            if let transaction = try await mempoolTransaction(txid) { found[txid] = transaction }
        }
        return found
    }
    public func watch(scripts: Set<Script>) async throws(ChainBackendError) -> ScriptHistorySummary { .none }
    public func watch(outpoints: Set<OutPoint>) async throws(ChainBackendError) {}
    public var servesWholeBlocks: Bool { true }
}

/// The tip of the active chain.
public struct ChainTip: Hashable, Sendable {
    public let height: Int
    public let hash: BlockHash

    public init(height: Int, hash: BlockHash) {
        self.height = height
        self.hash = hash
    }
}

/// A transaction and where it is: in the mempool, or in a block with its confirmations.
public struct ChainTransaction: Hashable, Sendable {
    public let transaction: Transaction
    /// nil while the transaction is unconfirmed.
    public let blockHash: BlockHash?
    /// 0 in the mempool, 1 in the tip block.
    public let confirmations: Int

    public init(transaction: Transaction, blockHash: BlockHash?, confirmations: Int) {
        self.transaction = transaction
        self.blockHash = blockHash
        self.confirmations = confirmations
    }
}

/// testmempoolaccept's verdict for one transaction.
public struct MempoolAcceptance: Hashable, Sendable {
    public let txid: TransactionID
    public let allowed: Bool
    /// Core's reject reason when not allowed (e.g. `bad-txns-inputs-missingorspent`).
    public let rejectReason: String?
    public let virtualSize: Int?
    public let feeSat: Int64?

    public init(txid: TransactionID, allowed: Bool, rejectReason: String?, virtualSize: Int?, feeSat: Int64?) {
        self.txid = txid
        self.allowed = allowed
        self.rejectReason = rejectReason
        self.virtualSize = virtualSize
        self.feeSat = feeSat
    }
}

/// gettxout's answer.
public struct UnspentOutputInfo: Hashable, Sendable {
    public let output: TransactionOutput
    /// 0 for a mempool output.
    public let confirmations: Int
    public let isCoinbase: Bool

    public init(output: TransactionOutput, confirmations: Int, isCoinbase: Bool) {
        self.output = output
        self.confirmations = confirmations
        self.isCoinbase = isCoinbase
    }
}
