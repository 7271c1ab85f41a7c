import Bitcoin

/// Checks a provider's lock transaction against the contract the client computed itself,
/// before the client reveals anything by claiming.
public enum LockVerifier {
    /// Finds the lock output and checks its script and amount.
    ///
    /// - Parameters:
    ///   - outputIndex: the output the provider named, if it did; it must pay the contract.
    ///     Without one, exactly one output must pay the contract.
    ///   - expectedAmount: the agreed lock value (X plus the claim fee); more is accepted.
    public static func findLock(in transaction: Transaction, contract: SwapContract, expectedAmount: Int64,
                                outputIndex: Int? = nil) throws -> LockOutput {
        let script = contract.scriptPubKey
        let index: Int
        if let outputIndex {
            guard transaction.outputs.indices.contains(outputIndex) else { throw HTLCError.lockOutputMissing }
            guard transaction.outputs[outputIndex].scriptPubKey == script else {
                throw HTLCError.lockScriptMismatch(outputIndex: outputIndex)
            }
            index = outputIndex
        } else {
            let matches = transaction.outputs.indices.filter { transaction.outputs[$0].scriptPubKey == script }
            guard let first = matches.first else { throw HTLCError.lockOutputMissing }
            guard matches.count == 1 else { throw HTLCError.lockOutputAmbiguous(count: matches.count) }
            index = first
        }
        let value = transaction.outputs[index].value
        guard value >= expectedAmount else { throw HTLCError.lockAmountShort(expected: expectedAmount, actual: value) }
        return LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(index)), value: value)
    }

    /// `findLock`, then the timing: the client only claims a lock it still has time to claim
    /// (`TimelockPolicy.checkFirstClaim`).
    public static func verify(_ transaction: Transaction, contract: SwapContract, expectedAmount: Int64,
                              outputIndex: Int? = nil, tipHeight: UInt32, policy: TimelockPolicy) throws -> LockOutput {
        let lock = try findLock(in: transaction, contract: contract, expectedAmount: expectedAmount, outputIndex: outputIndex)
        try policy.checkFirstClaim(timeoutHeight: contract.terms.timeoutHeight, tipHeight: tipHeight)
        return lock
    }
}
