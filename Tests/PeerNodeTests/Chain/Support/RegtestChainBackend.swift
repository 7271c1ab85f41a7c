import Bitcoin
import HTLC
import PeerNode
import Regtest

/// The hub's kernel-validated chain seen through `ChainBackend`, in process: each method
/// asks `RegtestChain` what Core's RPC would answer, and maps its refusals the way Core's
/// RPC presents them (`sendrawtransaction`'s code and message, `testmempoolaccept`'s
/// reject-reason). A test adapter for the follower's tests, not production code: the
/// node reaches the hub over JSON-RPC with `BitcoinCoreBackend`.
final class RegtestChainBackend: ChainBackend {
    let chain: RegtestChain

    init(chain: RegtestChain) {
        self.chain = chain
    }

    func tip() async throws(ChainBackendError) -> ChainTip {
        let tip = chain.tip
        return ChainTip(height: tip.height, hash: tip.hash)
    }

    func blockHash(atHeight height: Int) async throws(ChainBackendError) -> BlockHash {
        guard let hash = chain.blockHash(atHeight: height) else { throw .rpc(code: -8, message: "Block height out of range") }
        return hash
    }

    func block(_ hash: BlockHash) async throws(ChainBackendError) -> Block {
        guard let block = chain.block(hash) else { throw .rpc(code: -5, message: "Block not found") }
        return block.block
    }

    func transaction(_ txid: TransactionID) async throws(ChainBackendError) -> PeerNode.ChainTransaction? {
        guard let found = chain.transaction(txid) else { return nil }
        switch found.location {
        case .mempool:
            return PeerNode.ChainTransaction(transaction: found.transaction, blockHash: nil, confirmations: 0)
        case .block(let hash, _, let confirmations, _):
            return PeerNode.ChainTransaction(transaction: found.transaction, blockHash: hash, confirmations: confirmations)
        }
    }

    func broadcast(_ transaction: Transaction) async throws(ChainBackendError) -> TransactionID {
        do {
            return try chain.submit(transaction)
        } catch let rejection as MempoolRejection {
            throw .rejected(code: rejection.sendRawTransactionCode, reason: rejection.sendRawTransactionMessage)
        } catch {
            throw .rpc(code: -1, message: "\(error)")
        }
    }

    func testAccept(_ transaction: Transaction) async throws(ChainBackendError) -> MempoolAcceptance {
        do {
            let entry = try chain.testAccept(transaction)
            return MempoolAcceptance(txid: entry.txid, allowed: true, rejectReason: nil, virtualSize: entry.vsize,
                                     feeSat: entry.fee)
        } catch let rejection as MempoolRejection {
            return MempoolAcceptance(txid: transaction.txid, allowed: false, rejectReason: rejection.testAcceptReason,
                                     virtualSize: nil, feeSat: nil)
        } catch {
            throw .rpc(code: -1, message: "\(error)")
        }
    }

    func mempoolTransactionIDs() async throws(ChainBackendError) -> [TransactionID] {
        chain.mempoolEntries().map(\.entry.txid)
    }

    func unspentOutput(_ outpoint: OutPoint, includeMempool: Bool) async throws(ChainBackendError) -> UnspentOutputInfo? {
        chain.unspentOutput(outpoint, includeMempool: includeMempool).map {
            UnspentOutputInfo(output: $0.output, confirmations: $0.confirmations, isCoinbase: $0.isCoinbase)
        }
    }

    func estimateFee(targetBlocks: Int) async throws(ChainBackendError) -> FeeRate? {
        guard let rate = chain.estimateSmartFee(target: targetBlocks).feeRate else { return nil }
        return try? FeeRate(satPerKvB: rate)
    }
}
