import TestSupport
import XCTest
@testable import Bitcoin

/// The wrapper's own behaviour: how it fails, how it maps kernel statuses, and which spent
/// output it checks an input against.
final class KernelVerifierTests: XCTestCase {
    /// A one-input spend of `scriptPubKey` with an empty scriptSig.
    private func spend(inputs: Int = 1) -> Transaction {
        let inputs = (0..<inputs).map { index in
            TransactionInput(previousOutput: OutPoint(txid: TransactionID.zero, index: UInt32(index)))
        }
        return Transaction(version: 2, inputs: inputs, outputs: [TransactionOutput(value: 1_000, scriptPubKey: Script([.number(1)]))])
    }

    private let alwaysTrue = TransactionOutput(value: 5_000, scriptPubKey: Script([.number(1)]))
    private let alwaysFalse = TransactionOutput(value: 5_000, scriptPubKey: Script([.zero]))

    func testMissingLibraryIsKernelUnavailableWithTheSetupStep() {
        let path = "/nonexistent/peernode/libbitcoinkernel.so"
        XCTAssertThrowsError(try KernelVerifier(libraryPath: path)) { error in
            guard case BitcoinError.kernelUnavailable(let message) = error else {
                return XCTFail("expected kernelUnavailable, got \(error)")
            }
            XCTAssertTrue(message.contains(path), message)
            XCTAssertTrue(message.contains("make setup"), message)
            XCTAssertTrue(message.contains("lnurlcash-kernel 0.2.3"), message)
            XCTAssertTrue(message.contains("PEERNODE_KERNEL_LIB"), message)
        }
    }

    func testLibraryWithoutKernelSymbolsIsKernelUnavailable() {
        // A real shared library that is not the kernel: loads, but lacks every btck_ symbol.
        XCTAssertThrowsError(try KernelVerifier(libraryPath: "libm.so.6")) { error in
            guard case BitcoinError.kernelUnavailable(let message) = error else {
                return XCTFail("expected kernelUnavailable, got \(error)")
            }
            XCTAssertTrue(message.contains("btck_script_pubkey_create"), message)
            XCTAssertTrue(message.contains("make setup"), message)
        }
    }

    func testScriptThatFailsIsFalseNotAnError() throws {
        let kernel = try makeKernelVerifier()
        XCTAssertTrue(try kernel.verify(transaction: spend(), inputIndex: 0, spentOutputs: [alwaysTrue]))
        XCTAssertFalse(try kernel.verify(transaction: spend(), inputIndex: 0, spentOutputs: [alwaysFalse]))
    }

    func testEachInputIsCheckedAgainstItsOwnSpentOutput() throws {
        let kernel = try makeKernelVerifier()
        let transaction = spend(inputs: 2)
        let spent = [alwaysTrue, alwaysFalse]
        XCTAssertTrue(try kernel.verify(transaction: transaction, inputIndex: 0, spentOutputs: spent))
        XCTAssertFalse(try kernel.verify(transaction: transaction, inputIndex: 1, spentOutputs: spent))
        XCTAssertFalse(try kernel.verifyAll(transaction: transaction, spentOutputs: spent))
        XCTAssertTrue(try kernel.verifyAll(transaction: transaction, spentOutputs: [alwaysTrue, alwaysTrue]))
    }

    func testInputIndexOutOfRangeIsAnErrorNotACrash() throws {
        // The kernel asserts on a bad index; the wrapper must refuse before calling it.
        let kernel = try makeKernelVerifier()
        for index in [-1, 1, Int.max] {
            XCTAssertThrowsError(try kernel.verify(transaction: spend(), inputIndex: index, spentOutputs: [alwaysTrue])) {
                guard case BitcoinError.invalidTransaction = $0 else { return XCTFail("got \($0)") }
            }
        }
    }

    func testSpentOutputCountMustMatchInputs() throws {
        let kernel = try makeKernelVerifier()
        XCTAssertThrowsError(try kernel.verify(transaction: spend(inputs: 2), inputIndex: 0, spentOutputs: [alwaysTrue])) {
            guard case BitcoinError.invalidTransaction = $0 else { return XCTFail("got \($0)") }
        }
        XCTAssertThrowsError(try kernel.verifyAll(transaction: spend(), spentOutputs: [])) {
            guard case BitcoinError.invalidTransaction = $0 else { return XCTFail("got \($0)") }
        }
    }

    func testFlagsOutsideTheConsensusSetAreRefusedBeforeTheKernelAborts() throws {
        let kernel = try makeKernelVerifier()
        let strictEncoding = ScriptVerificationFlags(rawValue: 1 << 1) // a policy flag in Core
        XCTAssertThrowsError(try kernel.verify(transaction: spend(), inputIndex: 0, spentOutputs: [alwaysTrue],
                                               flags: [.p2sh, strictEncoding])) {
            guard case BitcoinError.invalidScript = $0 else { return XCTFail("got \($0)") }
        }
    }

    func testKernelErrorStatusIsThrownWithTheFunctionName() throws {
        // WITNESS without P2SH is a combination the kernel refuses to evaluate (status 1).
        let kernel = try makeKernelVerifier()
        XCTAssertThrowsError(try kernel.verify(transaction: spend(), inputIndex: 0, spentOutputs: [alwaysTrue],
                                               flags: [.witness])) {
            XCTAssertEqual($0 as? BitcoinError, .kernelCallFailed(function: "btck_script_pubkey_verify", status: 1))
        }
    }

    func testTaprootGetsEverySpentOutput() throws {
        // With TAPROOT the kernel refuses (status 2) unless it has all spent outputs; the
        // wrapper always passes them, so a plain spend verifies under `.all`.
        let kernel = try makeKernelVerifier()
        XCTAssertTrue(try kernel.verifyAll(transaction: spend(inputs: 3), spentOutputs: [alwaysTrue, alwaysTrue, alwaysTrue],
                                           flags: .all))
    }

    func testEmptyScriptPubKeyAndNoFlags() throws {
        // An empty scriptPubKey with an empty scriptSig leaves an empty stack: invalid. Also
        // exercises the empty-buffer path into the kernel.
        let kernel = try makeKernelVerifier()
        let empty = TransactionOutput(value: 0, scriptPubKey: Script())
        XCTAssertFalse(try kernel.verify(transaction: spend(), inputIndex: 0, spentOutputs: [empty], flags: []))
    }

    func testVerifierIsUsableFromConcurrentTasks() async throws {
        let kernel = try makeKernelVerifier()
        let transaction = spend(inputs: 2)
        let spent = [alwaysTrue, alwaysFalse]
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask { try kernel.verify(transaction: transaction, inputIndex: index % 2, spentOutputs: spent) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        XCTAssertEqual(results.filter { $0 }.count, 16)
    }

    func testLoadingTwiceReusesTheLibrary() throws {
        let first = try makeKernelVerifier()
        let second = try KernelVerifier(libraryPath: first.libraryPath)
        XCTAssertEqual(first.libraryPath, second.libraryPath)
        XCTAssertTrue(try second.verify(transaction: spend(), inputIndex: 0, spentOutputs: [alwaysTrue]))
    }
}
