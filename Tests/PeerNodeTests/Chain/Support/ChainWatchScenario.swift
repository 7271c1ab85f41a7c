import Bitcoin
import PeerNode
import Regtest
import Transport
import TestSupport
import XCTest

/// A follower test's cast: a miner whose coinbases pay the receiver, the script it watches.
protocol ChainWatchScenario {
    var miner: SigningKey { get }
    var receiver: SigningKey { get }
}

extension ChainWatchScenario {
    /// Pays `value - fee` of the coinbase at `height` to the receiver.
    func payReceiver(_ chain: RegtestChain, fromCoinbaseAt height: Int, fee: Int64 = 10_000) throws -> Transaction {
        let coin = try coinbase(of: chain, atHeight: height)
        return try miner.spend(coin.outpoint, value: coin.value,
                               to: [TransactionOutput(value: coin.value - fee, scriptPubKey: receiver.script)])
    }

    /// The event for `transaction` paying the receiver at output 0.
    func received(_ transaction: Transaction, block: ChainTip?, confirmations: Int) -> ChainEvent {
        .transaction(WatchedTransaction(
            transaction: transaction, txid: transaction.txid,
            received: [ReceivedOutput(outpoint: OutPoint(txid: transaction.txid, index: 0), output: transaction.outputs[0])],
            spent: [], block: block, confirmations: confirmations))
    }

    func tip(_ chain: RegtestChain, _ height: Int) throws -> ChainTip {
        ChainTip(height: height, hash: try XCTUnwrap(chain.blockHash(atHeight: height)))
    }
}
