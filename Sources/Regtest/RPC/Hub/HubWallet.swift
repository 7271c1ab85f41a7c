import Bitcoin

/// The hub's own coins, from which `hub_fund` pays addresses. They sit on a P2WSH output
/// whose witness script is `OP_TRUE`: spending needs no key, which is fine on a private
/// regtest chain and keeps the hub free of key management. Coins are found by scanning
/// the active chain, so reorgs need no bookkeeping.
public final class HubWallet: Sendable {
    /// `OP_TRUE`, the witness script of every hub coin.
    static let witnessScript: [UInt8] = [0x51]

    private let chain: RegtestChain
    private let policy: MempoolPolicy

    init(chain: RegtestChain, policy: MempoolPolicy) {
        self.chain = chain
        self.policy = policy
    }

    /// The P2WSH output script the hub mines to and keeps its change on.
    public let script: Script = Address.p2wsh(scriptHash: SHA256.hash(HubWallet.witnessScript)).script

    public var address: String { Address.p2wsh(scriptHash: SHA256.hash(HubWallet.witnessScript)).encoded(for: .regtest) }

    /// A coin the hub can spend now: unspent (also by the mempool) and, for a coinbase, mature.
    struct SpendableCoin {
        let outpoint: OutPoint
        let value: Int64
    }

    func spendableCoins() -> [SpendableCoin] {
        var coins: [SpendableCoin] = []
        let height = chain.height
        guard height >= 1 else { return [] }
        for blockHeight in 1...height {
            guard let block = chain.block(atHeight: blockHeight)?.block else { continue }
            for transaction in block.transactions {
                let txid = transaction.txid
                for (index, output) in transaction.outputs.enumerated() where output.scriptPubKey == script {
                    let outpoint = OutPoint(txid: txid, index: UInt32(index))
                    guard let unspent = chain.unspentOutput(outpoint, includeMempool: true) else { continue }
                    if unspent.isCoinbase && unspent.confirmations < RegtestParameters.coinbaseMaturity { continue }
                    coins.append(SpendableCoin(outpoint: outpoint, value: output.value))
                }
            }
        }
        return coins
    }

    /// The hub's spendable balance in satoshis.
    public var balance: Int64 { spendableCoins().reduce(0) { $0 + $1.value } }

    /// Pays `amount` satoshis to `scriptPubKey` from the hub's coins, mining blocks to the
    /// hub first when it has too little (a coinbase needs 100 blocks on top to mature).
    /// The transaction is submitted to the mempool; the caller decides whether to mine it.
    func pay(_ amount: Int64, to scriptPubKey: Script) throws -> Transaction {
        var attempts = 0
        while true {
            let coins = spendableCoins()
            if let transaction = try build(amount, to: scriptPubKey, from: coins) {
                try chain.submit(transaction, maxFeeRate: 0)
                return transaction
            }
            attempts += 1
            guard attempts <= 64 else {
                throw ChainError.invalidRequest("the hub cannot fund \(CoreAmount.format(amount)) BTC: block subsidies are exhausted")
            }
            // One more coinbase to the hub, then enough blocks on top for it to mature.
            try chain.mine(1 + RegtestParameters.coinbaseMaturity, to: script)
        }
    }

    /// A transaction paying `amount` from `coins` with change back to the hub, or nil when
    /// the coins are not enough. Fee: twice the relay floor (at least 2 sat/vB), or twice a
    /// raised mempool minimum, so funding keeps working under `hub_setmempoolminfee`.
    private func build(_ amount: Int64, to scriptPubKey: Script, from coins: [SpendableCoin]) throws -> Transaction? {
        let feeRate = max(policy.minRelayFeeRate, 1_000, chain.mempoolMinFeeRate) * 2
        var selected: [SpendableCoin] = []
        var total: Int64 = 0
        for coin in coins.sorted(by: { $0.value > $1.value }) {
            selected.append(coin)
            total += coin.value
            var transaction = Transaction(
                version: 2,
                inputs: selected.map {
                    TransactionInput(previousOutput: $0.outpoint, sequence: TransactionInput.replaceableSequence,
                                     witness: Witness([HubWallet.witnessScript]))
                },
                outputs: [TransactionOutput(value: amount, scriptPubKey: scriptPubKey),
                          TransactionOutput(value: 0, scriptPubKey: script)])
            let fee = Money.fee(ratePerKvB: feeRate, vsize: transaction.virtualSize)
            let change = total - amount - fee
            guard change >= 0 else { continue }
            if change < 1_000 {
                // Change this small would be dust (or nearly): leave it to the miner.
                transaction.outputs.removeLast()
            } else {
                transaction.outputs[1].value = change
            }
            return transaction
        }
        return nil
    }
}
