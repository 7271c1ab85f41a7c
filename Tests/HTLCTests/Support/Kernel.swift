import Bitcoin
import XCTest

/// Bitcoin Core's script interpreter for tests. A missing library fails the test with the
/// setup step; it never skips.
func makeKernel(file: StaticString = #filePath, line: UInt = #line) throws -> KernelVerifier {
    do {
        return try KernelVerifier()
    } catch {
        XCTFail("\(error). HTLC spends are checked by Bitcoin Core's kernel: export "
            + "PEERNODE_KERNEL_LIB=<repo>/.build/kernel/libbitcoinkernel.so", file: file, line: line)
        throw error
    }
}

extension KernelVerifier {
    /// Whether the single input of `transaction` validly spends `spent`.
    func accepts(_ transaction: Transaction, spending spent: TransactionOutput) throws -> Bool {
        try verify(transaction: transaction, inputIndex: 0, spentOutputs: [spent])
    }
}
