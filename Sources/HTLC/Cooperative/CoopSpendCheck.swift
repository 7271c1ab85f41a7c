import Bitcoin

/// The co-signer's check of a transaction it is asked to sign through the lock's key path,
/// before it learns anything from it or signs. It accepts only a transaction that can do
/// nothing but spend this swap's lock: exactly one input, spending exactly the lock, no
/// witness or scriptSig yet, version 1 or 2, an nLockTime that cannot hold it past the
/// timeout, outputs that leave a fee of zero or more. A claim must also come with a
/// preimage of the payment hash: the co-signer of a claim is paid by it (a reverse
/// provider settles its hold invoice with it, a submarine client holds the proof that its
/// invoice was paid) before it signs.
///
/// The outputs are the spender's business (its money once the co-signer has agreed);
/// SIGHASH_DEFAULT commits to all of them and to the lock's value, so the signature cannot
/// be moved to another transaction.
public struct CoopSpendCheck: Sendable {
    /// More outputs than a claim or refund needs is not one (and bounds a request's work).
    public static let maximumOutputs = 16

    public let context: CoopSpendContext

    public init(context: CoopSpendContext) {
        self.context = context
    }

    /// A claim: the preimage first, then the transaction's shape.
    public func check(claim transaction: Transaction, preimage: [UInt8]) throws(CoopSpendError) -> CheckedCoopSpend {
        guard preimage.count == 32, SHA256.hash(preimage) == context.contract.terms.paymentHash else {
            throw .preimageMismatch
        }
        return try check(spend: transaction)
    }

    /// A refund (or the shape of any spend): exactly the lock, nothing else.
    public func check(refund transaction: Transaction) throws(CoopSpendError) -> CheckedCoopSpend {
        try check(spend: transaction)
    }

    private func check(spend transaction: Transaction) throws(CoopSpendError) -> CheckedCoopSpend {
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
        return CheckedCoopSpend(transaction: transaction, sighash: try context.sighash(of: transaction),
                                fee: context.lock.value - total)
    }
}

/// A transaction that passed `CoopSpendCheck`, with the message the two parties sign.
public struct CheckedCoopSpend: Sendable, Hashable {
    public let transaction: Transaction
    /// The BIP341 key-path sighash (SIGHASH_DEFAULT).
    public let sighash: [UInt8]
    /// Lock value − outputs, at least 0.
    public let fee: Int64
}
