import Bitcoin
import HTLC
import PeerNode
import Regtest
import Synchronization

/// `ChainBackend` over the hub's `RegtestChain` in the same process: a real chain whose
/// blocks Bitcoin Core's kernel validates and whose mempool judges transactions like
/// Core's, without the JSON-RPC layer (tests over the RPC client come with it).
///
/// Before a transaction reaches the mempool, each of its inputs is verified by the
/// kernel's script interpreter here, so every transaction the wallet builds in tests is
/// checked input by input by Core's own code.
final class RegtestChainBackend: ChainBackend {
    let chain: RegtestChain
    let verifier: KernelVerifier
    private let verified = Mutex<[TransactionID]>([])
    private let failingBroadcasts = Mutex(0)
    private let lostBroadcastAnswers = Mutex(0)
    private let beforeMempoolListing = Mutex<(@Sendable () -> Void)?>(nil)
    private let afterMempoolListing = Mutex<(@Sendable () -> Void)?>(nil)
    private let verboseLookups = Mutex(0)
    private let toldToWatch = Mutex<[Set<Script>]>([])
    private let hiddenTop = Mutex(0)

    init(chain: RegtestChain, verifier: KernelVerifier) {
        self.chain = chain
        self.verifier = verifier
    }

    /// Transactions whose every input the kernel verified, in broadcast order.
    var verifiedTransactions: [TransactionID] { verified.withLock { $0 } }

    /// Makes the next `count` broadcasts fail as if the node were unreachable.
    func failNextBroadcasts(_ count: Int) { failingBroadcasts.withLock { $0 = count } }

    /// Makes the next `count` broadcasts reach the mempool and then fail as if the answer
    /// was lost (a timeout, a dropped connection): the caller cannot tell it went out.
    func loseNextBroadcastAnswers(_ count: Int) { lostBroadcastAnswers.withLock { $0 = count } }

    /// Runs `action` once, right before the next mempool listing is taken (a block mined
    /// between a caller's look at the tip and its look at the mempool).
    func beforeNextMempoolListing(_ action: @escaping @Sendable () -> Void) { beforeMempoolListing.withLock { $0 = action } }

    /// Runs `action` once, right after the next mempool listing is taken (a block mined
    /// between a caller's listing and its fetch of the listed transactions).
    func afterNextMempoolListing(_ action: @escaping @Sendable () -> Void) { afterMempoolListing.withLock { $0 = action } }

    /// How many times `transaction(_:)` was asked: Core's verbose `getrawtransaction`,
    /// several times the bytes of the hex that `mempoolTransaction(_:)` stands for.
    var verboseLookupCount: Int { verboseLookups.withLock { $0 } }

    /// The script sets the wallet named with `watch(scripts:)`, in order. Core's blocks hold
    /// every transaction, so it needs none of them; an Electrum server would.
    var watchCalls: [Set<Script>] { toldToWatch.withLock { $0 } }

    func watch(scripts: Set<Script>) async throws(ChainBackendError) -> ScriptHistorySummary {
        toldToWatch.withLock { $0.append(scripts) }
        return .none
    }

    /// From now on the backend shows the chain without its `count` newest blocks, as a
    /// backend lagging the chain LND follows would (0: the whole chain again).
    func hideTopBlocks(_ count: Int) { hiddenTop.withLock { $0 = max(0, count) } }

    func tip() async throws(ChainBackendError) -> ChainTip {
        let hidden = hiddenTop.withLock { $0 }
        guard hidden > 0 else {
            let tip = chain.tip
            return ChainTip(height: tip.height, hash: tip.hash)
        }
        let height = max(0, chain.height - hidden)
        guard let hash = chain.blockHash(atHeight: height) else { throw .rpc(code: -8, message: "Block height out of range") }
        return ChainTip(height: height, hash: hash)
    }

    func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash {
        if height > chain.height - hiddenTop.withLock({ $0 }) { throw .rpc(code: -8, message: "Block height out of range") }
        guard let hash = chain.blockHash(atHeight: height) else { throw .rpc(code: -8, message: "Block height out of range") }
        return hash
    }

    func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block {
        guard let block = chain.block(hash) else { throw .rpc(code: -5, message: "Block not found") }
        return block.block
    }

    func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> PeerNode.ChainTransaction? {
        verboseLookups.withLock { $0 += 1 }
        guard let found = chain.transaction(txid) else { return nil }
        switch found.location {
        case .mempool:
            return PeerNode.ChainTransaction(transaction: found.transaction, blockHash: nil, confirmations: 0)
        case .block(let hash, _, let confirmations, _):
            return PeerNode.ChainTransaction(transaction: found.transaction, blockHash: hash, confirmations: confirmations)
        }
    }

    func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID {
        let failing = failingBroadcasts.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if failing { throw .unreachable(url: "in-process hub", reason: "broadcast failure injected by the test") }
        try verifyScripts(transaction)
        do {
            let txid = try chain.submit(transaction)
            let lost = lostBroadcastAnswers.withLock { count -> Bool in
                guard count > 0 else { return false }
                count -= 1
                return true
            }
            if lost { throw ChainBackendError.unreachable(url: "in-process hub", reason: "the answer was lost (injected by the test)") }
            return txid
        } catch let error as ChainBackendError {
            throw error
        } catch let rejection as MempoolRejection {
            throw .rejected(code: rejection.sendRawTransactionCode, reason: rejection.sendRawTransactionMessage)
        } catch {
            throw .rpc(code: -1, message: "\(error)")
        }
    }

    func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance {
        do {
            let entry = try chain.testAccept(transaction)
            return MempoolAcceptance(txid: transaction.txid, allowed: true, rejectReason: nil,
                                     virtualSize: entry.vsize, feeSat: entry.fee)
        } catch let rejection as MempoolRejection {
            return MempoolAcceptance(txid: transaction.txid, allowed: false, rejectReason: rejection.testAcceptReason,
                                     virtualSize: nil, feeSat: nil)
        } catch {
            throw .rpc(code: -1, message: "\(error)")
        }
    }

    func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID] {
        let action = beforeMempoolListing.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
        let listed = chain.mempoolEntries().map(\.entry.txid)
        afterMempoolListing.withLock { action in
            defer { action = nil }
            return action
        }?()
        return listed
    }

    /// `getrawtransaction <txid> false` on Core with `-txindex`: the bytes, found in the
    /// mempool or, once mined, in its block (which the answer does not say).
    func mempoolTransaction(_ txid: TransactionID) async throws(ChainBackendError) -> Transaction? {
        chain.transaction(txid)?.transaction
    }

    func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo? {
        chain.unspentOutput(outpoint, includeMempool: includeMempool).map {
            UnspentOutputInfo(output: $0.output, confirmations: $0.confirmations, isCoinbase: $0.isCoinbase)
        }
    }

    func mempoolDescendantCount(_ txid: TransactionID) async throws(ChainBackendError) -> Int? {
        chain.mempoolEntry(txid)?.descendantCount
    }

    func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate? {
        guard let rate = chain.estimateSmartFee(target: targetBlocks).feeRate else { return nil }
        do { return try FeeRate(satPerKvB: rate) } catch { throw .malformedResponse("fee rate \(rate) sat/kvB") }
    }

    /// Runs each input through the kernel's script interpreter with the outputs it spends
    /// (from the chain or the mempool). An input whose prevout is unknown is left to the
    /// mempool, which refuses it as missing.
    private func verifyScripts(_ transaction: Transaction) throws(ChainBackendError) {
        var spent: [TransactionOutput] = []
        for input in transaction.inputs {
            let previous = input.previousOutput
            guard let parent = chain.transaction(previous.txid)?.transaction,
                  Int(previous.index) < parent.outputs.count else { return }
            // As Core, inputs first: a coin already spent in a block is refused as missing
            // (-25) by the mempool below, before any script is looked at.
            let inMempool = chain.mempoolEntry(previous.txid) != nil
            guard inMempool || chain.unspentOutput(previous, includeMempool: false) != nil else { return }
            spent.append(parent.outputs[Int(previous.index)])
        }
        for index in transaction.inputs.indices {
            let valid: Bool
            do {
                valid = try verifier.verify(transaction: transaction, inputIndex: index, spentOutputs: spent)
            } catch {
                throw .rpc(code: -1, message: "the kernel could not verify input \(index): \(error)")
            }
            guard valid else {
                throw .rejected(code: -26, reason: "kernel script verification failed for input \(index) of \(transaction.txid)")
            }
        }
        verified.withLock { $0.append(transaction.txid) }
    }
}
