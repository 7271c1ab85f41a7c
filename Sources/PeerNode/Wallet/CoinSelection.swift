import Bitcoin
import HTLC

/// Which coins pay for a transaction, the fee, and the change.
///
/// Two passes, both over coins whose value exceeds the fee of spending them at the rate:
///
/// 1. Branch and bound, lite (Core's BnB idea): a depth-first search, largest coins first,
///    for a set whose total lands between the amount plus fee without change and that plus
///    the cost of change (the change output now and spending it later). Such a set needs
///    no change output: cheaper, and nothing links the payment to a change address. The
///    search gives up after `maximumTries` steps.
/// 2. Largest first: add coins from the largest until amount plus fee with a change output
///    is covered. Few inputs keep the fee low at the rate asked for now (a wallet that pays
///    large amounts would rather not consolidate at high rates), and it is predictable.
///
/// Change below its dust threshold is not created; it goes to the fee. Fees come from the
/// exact vsize of the signed transaction (`TaprootSpendSize`), rounded up.
public struct CoinSelection: Sendable, Hashable {
    public let coins: [WalletCoin]
    public let fee: Int64
    /// The change value, nil when there is no change output.
    public let change: Int64?
    /// vsize of the signed transaction.
    public let virtualSize: Int

    public static let maximumTries = 100_000

    /// Picks coins from `available` for `outputs` plus a possible change output paying
    /// `changeScript` (whose dust threshold is `changeDust`), at `feeRate`.
    public static func select(from available: [WalletCoin], paying outputs: [TransactionOutput],
                              changeScript: Script, changeDust: Int64, feeRate: FeeRate,
                              lockTime: UInt32 = 0) throws(WalletError) -> CoinSelection {
        let target = outputs.reduce(Int64(0)) { $0 + $1.value }
        let changeOutput = TransactionOutput(value: 0, scriptPubKey: changeScript)
        func sizeWithout(_ count: Int) -> Int { TaprootSpendSize.virtualSize(inputCount: count, outputs: outputs, lockTime: lockTime) }
        func sizeWith(_ count: Int) -> Int {
            TaprootSpendSize.virtualSize(inputCount: count, outputs: outputs + [changeOutput], lockTime: lockTime)
        }

        // Each input's own fee, from its weight (230) rounded up to whole sats.
        let inputFee = (feeRate.satPerKvB * Int64(TaprootSpendSize.inputWeight) + 3_999) / 4_000
        let candidates = available.filter { $0.value > inputFee }.sorted(by: WalletCoin.largestFirst)

        if let exact = branchAndBound(candidates, target: target, inputFee: inputFee, feeRate: feeRate,
                                      sizeWithout: sizeWithout) {
            return exact
        }

        var selected: [WalletCoin] = []
        var total: Int64 = 0
        for coin in candidates {
            selected.append(coin)
            total += coin.value
            let withChange = sizeWith(selected.count)
            let feeWithChange = feeRate.fee(forVirtualSize: withChange)
            if total >= target + feeWithChange, total - target - feeWithChange >= changeDust {
                return CoinSelection(coins: selected, fee: feeWithChange, change: total - target - feeWithChange,
                                     virtualSize: withChange)
            }
            let without = sizeWithout(selected.count)
            if total >= target + feeRate.fee(forVirtualSize: without) {
                // What is left over would not make a change output above dust: it pays fee.
                return CoinSelection(coins: selected, fee: total - target, change: nil, virtualSize: without)
            }
        }
        let all = available.reduce(Int64(0)) { $0 + $1.value }
        throw WalletError.insufficientFunds(needed: target + feeRate.fee(forVirtualSize: sizeWithout(max(candidates.count, 1))),
                                            available: all)
    }

    /// The depth-first search of pass 1, checked against the exact fee before it is used.
    private static func branchAndBound(_ coins: [WalletCoin], target: Int64, inputFee: Int64, feeRate: FeeRate,
                                       sizeWithout: (Int) -> Int) -> CoinSelection? {
        guard !coins.isEmpty else { return nil }
        let effective = coins.map { $0.value - inputFee }
        // The fee of everything but the inputs: the transaction with no inputs' size, which
        // counts the segwit marker and flag the real one has.
        let fixedFee = feeRate.fee(forVirtualSize: sizeWithout(0))
        let changeOutputFee = feeRate.fee(forVirtualSize: TaprootSpendSize.p2trOutputSize)
        let costOfChange = changeOutputFee + inputFee
        let lower = target + fixedFee
        let upper = lower + costOfChange
        var remaining = [Int64](repeating: 0, count: effective.count + 1)
        for index in effective.indices.reversed() { remaining[index] = remaining[index + 1] + effective[index] }
        guard remaining[0] >= lower else { return nil }

        var tries = 0
        var current: [Int] = []
        var best: [Int]?
        var bestExcess = Int64.max
        func search(_ index: Int, _ value: Int64) {
            tries += 1
            guard tries <= maximumTries, bestExcess > 0, value <= upper else { return }
            if value >= lower {
                if value - lower < bestExcess {
                    best = current
                    bestExcess = value - lower
                }
                return
            }
            guard index < effective.count, value + remaining[index] >= lower else { return }
            current.append(index)
            search(index + 1, value + effective[index])
            current.removeLast()
            // Leaving this coin out and taking an equal one next repeats the branch above.
            var next = index + 1
            while next < effective.count, effective[next] == effective[index] { next += 1 }
            search(next, value)
        }
        search(0, 0)

        guard let best else { return nil }
        let chosen = best.map { coins[$0] }
        let total = chosen.reduce(Int64(0)) { $0 + $1.value }
        let size = sizeWithout(chosen.count)
        let fee = feeRate.fee(forVirtualSize: size)
        // Rounding in the per-input fees can differ from the exact fee by a sat or two.
        guard total >= target + fee, total - target - fee <= costOfChange else { return nil }
        return CoinSelection(coins: chosen, fee: total - target, change: nil, virtualSize: size)
    }
}
