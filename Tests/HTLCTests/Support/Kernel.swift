import Bitcoin
import XCTest

extension KernelVerifier {
    /// Whether the single input of `transaction` validly spends `spent`.
    func accepts(_ transaction: Transaction, spending spent: TransactionOutput) throws -> Bool {
        try verify(transaction: transaction, inputIndex: 0, spentOutputs: [spent])
    }
}
