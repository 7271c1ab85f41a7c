import Bitcoin
import HTLC
import Transport

/// The client's lock of an `onchain_to_ln` swap, as the provider verified it: the whole
/// transaction (so the provider can relay it again after a reorg: it is signed and anyone
/// may broadcast it) and the output that pays the accepted contract exactly.
public struct SubmarineLock: Sendable, Hashable {
    public let transaction: Transaction
    public let output: LockOutput

    public init(transaction: Transaction, output: LockOutput) {
        self.transaction = transaction
        self.output = output
    }

    /// Finds the output of `transaction` that pays `contract` exactly `totalSat`.
    ///
    /// Exactly, not "at least": the client's accept names one amount, and a provider that
    /// took a larger lock would keep the surplus for a payment of the agreed size. Refusing
    /// leaves an over-locking client its whole lock back at the timeout, less its refund fee.
    public init(verifying transaction: Transaction, contract: SwapContract,
                totalSat: Int64) throws(SubmarineLockMismatch) {
        let script = contract.scriptPubKey
        let paying = transaction.outputs.indices.filter { transaction.outputs[$0].scriptPubKey == script }
        guard !paying.isEmpty else { throw .noOutputPaysTheContract }
        // A miner's client could lock in its own coinbase: the claim the provider pays for
        // would wait 100 blocks, until the refund is valid too (review of 2026-12-07).
        guard !transaction.isCoinbase else { throw .coinbase }
        guard let index = paying.first(where: { transaction.outputs[$0].value == totalSat }) else {
            // Name the output closest to the agreement: the largest one.
            let largest = paying.map { transaction.outputs[$0].value }.max() ?? 0
            throw largest < totalSat ? .amountShort(agreedSat: totalSat, lockedSat: largest)
                                     : .amountOver(agreedSat: totalSat, lockedSat: largest)
        }
        self.init(transaction: transaction,
                  output: LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(index)), value: totalSat))
    }

    public var txid: TransactionID { transaction.txid }

    /// Whether `other` spends one of this lock's inputs: a replacement (RBF) or, after a
    /// reorg, a double spend. A transaction that shares no input is only another payment to
    /// the same script and says nothing about this lock.
    public func conflicts(with other: Transaction) -> Bool {
        let spent = Set(transaction.inputs.map(\.previousOutput))
        return other.inputs.contains { spent.contains($0.previousOutput) }
    }
}

extension SubmarineLock {
    /// The stored form: the whole transaction (to relay it again), the output and its value.
    var json: JSONValue {
        .object(["tx": .string(transaction.serialized.hex), "vout": .integer(output.outPoint.index),
                 "value_sat": .integer(output.value)])
    }

    init(json: JSONValue) throws(ProviderError) {
        guard let hex = json["tx"]?.stringValue, let bytes = [UInt8](hex: hex),
              let transaction = try? Transaction(bytes: bytes),
              let vout = json["vout"]?.uint64Value, vout < UInt64(transaction.outputs.count),
              let value = json["value_sat"]?.int64Value, transaction.outputs[Int(vout)].value == value else {
            throw .corruptRecord("submarine lock")
        }
        self.init(transaction: transaction,
                  output: LockOutput(outPoint: OutPoint(txid: transaction.txid, index: UInt32(vout)), value: value))
    }
}
