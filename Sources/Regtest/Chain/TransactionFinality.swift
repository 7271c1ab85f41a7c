import Bitcoin

/// Absolute and relative lock times as Core's mempool judges them against the next block.
enum TransactionFinality {
    /// BIP68 flag bits of nSequence.
    static let disableFlag: UInt32 = 1 << 31
    static let typeFlag: UInt32 = 1 << 22
    static let valueMask: UInt32 = 0x0000_ffff
    /// BIP68 time units are 512 seconds.
    static let granularity = 9

    /// Core's `IsFinalTx`: final when nLockTime is zero or already passed (below `height` for a
    /// height lock, below `time` for a time lock), or when every input opts out with 0xffffffff.
    static func isFinal(_ transaction: Transaction, height: Int, time: Int64) -> Bool {
        let lockTime = transaction.lockTime
        if lockTime == 0 { return true }
        let limit = lockTime < RegtestParameters.lockTimeThreshold ? Int64(height) : time
        if Int64(lockTime) < limit { return true }
        return transaction.inputs.allSatisfy { $0.sequence == TransactionInput.finalSequence }
    }

    /// Core's `CalculateSequenceLocks` + `EvaluateSequenceLocks` for a transaction in the
    /// block after the tip. `coinHeights[i]` is the height of the block that created input
    /// i's coin (tip + 1 for a mempool parent); `medianTimes[h]` is the median time past of
    /// the active block at height h.
    static func sequenceLocksSatisfied(_ transaction: Transaction, coinHeights: [Int], tipHeight: Int,
                                       medianTimes: [Int64]) -> Bool {
        // BIP68 applies to version 2 and above only.
        guard transaction.version >= 2 else { return true }
        var minHeight = -1
        var minTime: Int64 = -1
        for (index, input) in transaction.inputs.enumerated() where input.sequence & disableFlag == 0 {
            let coinHeight = coinHeights[index]
            let value = input.sequence & valueMask
            if input.sequence & typeFlag != 0 {
                // Time locks count from the median time past of the block before the coin's.
                let base = medianTimes[min(max(coinHeight - 1, 0), medianTimes.count - 1)]
                minTime = max(minTime, base + (Int64(value) << granularity) - 1)
            } else {
                minHeight = max(minHeight, coinHeight + Int(value) - 1)
            }
        }
        return minHeight < tipHeight + 1 && minTime < medianTimes[tipHeight]
    }
}
