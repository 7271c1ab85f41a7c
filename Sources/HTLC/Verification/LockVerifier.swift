import Bitcoin

/// Checks a provider's lock transaction against the contract the client computed itself,
/// before the client reveals anything by claiming.
public enum LockVerifier {
    /// Finds the lock output and checks its script and amount.
    ///
    /// Anyone can pay the contract's script, and a provider can add outputs of its own: a
    /// dust or decoy output paying the contract must not fail a good lock (audit L-3).
    /// Every output paying the contract is a candidate, and the one claimed is one that
    /// verifies (pays at least `expectedAmount`): the output the provider named when it
    /// verifies, else the smallest that does (the closest to what was agreed). Only when
    /// none verifies is the lock refused.
    ///
    /// - Parameters:
    ///   - outputIndex: the output the provider named, if it did; preferred when it verifies.
    ///   - expectedAmount: the agreed lock value (X plus the claim fee); more is accepted.
    public static func findLock(in transaction: Transaction, contract: SwapContract, expectedAmount: Int64,
                                outputIndex: Int? = nil) throws -> LockOutput {
        let script = contract.scriptPubKey
        let outputs = transaction.outputs
        let lock = { (index: Int) in
            LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(index)), value: outputs[index].value)
        }
        let candidates = outputs.indices.filter { outputs[$0].scriptPubKey == script }
        if let outputIndex, candidates.contains(outputIndex), outputs[outputIndex].value >= expectedAmount {
            return lock(outputIndex)
        }
        let verifying = candidates.filter { outputs[$0].value >= expectedAmount }
        if let best = verifying.min(by: { outputs[$0].value < outputs[$1].value }) { return lock(best) }
        // None verifies: say what is wrong with the named output, else with the best candidate.
        if let outputIndex {
            guard outputs.indices.contains(outputIndex) else { throw HTLCError.lockOutputMissing }
            guard outputs[outputIndex].scriptPubKey == script else { throw HTLCError.lockScriptMismatch(outputIndex: outputIndex) }
        }
        guard let largest = candidates.map({ outputs[$0].value }).max() else { throw HTLCError.lockOutputMissing }
        throw HTLCError.lockAmountShort(expected: expectedAmount, actual: largest)
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
