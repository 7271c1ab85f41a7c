import Bitcoin

/// The hub's own view of the active chain's unspent outputs. The kernel keeps its own
/// (authoritative) UTXO set but does not expose lookups, so the hub mirrors it to judge
/// mempool transactions and answer `gettxout`. Both are fed the same blocks; a block the
/// kernel connected that does not apply here is a hub bug and says so.
public struct UTXOSet: Sendable {
    private var coins: [OutPoint: Coin] = [:]

    public init() {}

    public var count: Int { coins.count }

    public func coin(_ outpoint: OutPoint) -> Coin? { coins[outpoint] }

    /// Core never adds provably unspendable outputs (OP_RETURN scripts) to its set.
    static func isUnspendable(_ script: Script) -> Bool {
        script.bytes.first == 0x6a || script.count > 10_000
    }

    /// Spends the block's inputs and adds its outputs, returning the undo data.
    mutating func connect(_ block: Block, height: Int) throws -> BlockUndo {
        var undo = BlockUndo()
        for transaction in block.transactions {
            if !transaction.isCoinbase {
                for input in transaction.inputs {
                    guard let coin = coins.removeValue(forKey: input.previousOutput) else {
                        throw ChainError.viewDiverged("block \(block.hash) at height \(height) spends \(input.previousOutput), "
                            + "which the hub's UTXO view does not hold")
                    }
                    undo.spent.append((input.previousOutput, coin))
                }
            }
            let txid = transaction.txid
            for (index, output) in transaction.outputs.enumerated() where !Self.isUnspendable(output.scriptPubKey) {
                coins[OutPoint(txid: txid, index: UInt32(index))] =
                    Coin(output: output, height: height, isCoinbase: transaction.isCoinbase)
            }
        }
        return undo
    }

    /// Undoes `connect` as Core's `DisconnectBlock` does: transaction by transaction from
    /// the last, removing its outputs and then restoring what it spent. The order matters
    /// for a coin created and spent in the same block (a parent and its child): its
    /// spender restores it first, then its creator removes it. Restoring every spent coin
    /// after removing every output would leave that coin behind, unspendable on chain yet
    /// "confirmed" to the mempool, and the hub would mine the child without its parent.
    mutating func disconnect(_ block: Block, undo: BlockUndo) {
        var spent = undo.spent[...]
        for transaction in block.transactions.reversed() {
            let txid = transaction.txid
            for index in transaction.outputs.indices {
                coins.removeValue(forKey: OutPoint(txid: txid, index: UInt32(index)))
            }
            guard !transaction.isCoinbase else { continue }
            for _ in transaction.inputs {
                guard let (outpoint, coin) = spent.popLast() else { break }
                coins[outpoint] = coin
            }
        }
    }
}
