import Bitcoin

/// The provider's check of a claim transaction a client asks it to co-sign, before it
/// learns anything from it or signs. It accepts only a transaction that can do nothing but
/// claim this swap's lock: exactly one input, spending exactly the lock, no witness or
/// scriptSig yet, version 1 or 2, an nLockTime that cannot hold it past the timeout,
/// outputs that leave a fee of zero or more; and a preimage of the payment hash (the
/// provider is paid by settling its hold invoice with it before it signs).
///
/// The outputs are the client's business (they are its money once the preimage is
/// revealed); SIGHASH_DEFAULT commits to all of them and to the lock's value, so the
/// signature cannot be moved to another transaction.
public struct CoopClaimCheck: Sendable {
    /// More outputs than a claim needs is not a claim (and bounds the work of a request).
    public static let maximumOutputs = 16

    public let context: CoopClaimContext

    public init(context: CoopClaimContext) {
        self.context = context
    }

    public func check(claim transaction: Transaction, preimage: [UInt8]) throws(CoopClaimError) -> CheckedCoopClaim {
        guard preimage.count == 32, SHA256.hash(preimage) == context.contract.terms.paymentHash else {
            throw .preimageMismatch
        }
        guard transaction.inputs.count == 1 else { throw .inputCount(transaction.inputs.count) }
        let input = transaction.inputs[0]
        guard input.previousOutput == context.lock.outPoint else { throw .spendsAnotherOutpoint }
        guard input.witness.isEmpty, input.scriptSig.bytes.isEmpty else { throw .alreadySigned }
        guard (1...Self.maximumOutputs).contains(transaction.outputs.count) else {
            throw .outputCount(transaction.outputs.count, maximum: Self.maximumOutputs)
        }
        guard (1...2).contains(transaction.version) else { throw .unsupportedVersion(transaction.version) }
        let timeout = context.contract.terms.timeoutHeight
        guard transaction.lockTime < timeout else {
            throw .lockTimeNotBeforeTimeout(lockTime: transaction.lockTime, timeoutHeight: timeout)
        }
        // Summed with overflow checks: values come from a peer.
        var total: Int64 = 0
        for output in transaction.outputs {
            let (sum, overflow) = total.addingReportingOverflow(output.value)
            guard output.value >= 0, !overflow, sum <= context.lock.value else {
                throw .outputsExceedLock(outputs: overflow || output.value < 0 ? Int64.max : sum, lockValue: context.lock.value)
            }
            total = sum
        }
        return CheckedCoopClaim(transaction: transaction, sighash: try context.sighash(of: transaction),
                                fee: context.lock.value - total)
    }
}

/// A claim transaction that passed `CoopClaimCheck`, with the message the two parties sign.
public struct CheckedCoopClaim: Sendable, Hashable {
    public let transaction: Transaction
    /// The BIP341 key-path sighash (SIGHASH_DEFAULT).
    public let sighash: [UInt8]
    /// Lock value − outputs, at least 0.
    public let fee: Int64
}
