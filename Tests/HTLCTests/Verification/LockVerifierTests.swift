import Bitcoin
@testable import HTLC
import XCTest

/// Each malformed lock is refused with its own error, for both contract types.
final class LockVerifierTests: XCTestCase {
    private let amount: Int64 = 50_000
    private let policy = try! TimelockPolicy(requiredConfirmations: 1)
    private let tip = Fixture.timeout - 100

    private func lockTransaction(_ outputs: [TransactionOutput]) -> Transaction {
        Transaction(inputs: [TransactionInput(previousOutput: OutPoint(txid: .zero, index: 7))], outputs: outputs)
    }

    private var change: TransactionOutput {
        TransactionOutput(value: 12_345, scriptPubKey: Fixture.destination(.p2wpkh).script)
    }

    func testFindsTheLockAmongOtherOutputs() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let tx = lockTransaction([change, contract.lockOutput(value: amount)])
            let lock = try LockVerifier.verify(tx, contract: contract, expectedAmount: amount, tipHeight: tip, policy: policy)
            XCTAssertEqual(lock, LockOutput(outPoint: OutPoint(txid: tx.txid, index: 1), value: amount))
            XCTAssertEqual(try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount, outputIndex: 1), lock)
            // Overpaying is the provider's loss, not a reason to refuse.
            let over = lockTransaction([contract.lockOutput(value: amount + 1)])
            XCTAssertEqual(try LockVerifier.findLock(in: over, contract: contract, expectedAmount: amount).value, amount + 1)
        }
    }

    func testNoSuchOutput() {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            XCTAssertThrows(.lockOutputMissing, try LockVerifier.findLock(in: lockTransaction([change]), contract: contract,
                                                                          expectedAmount: amount))
            XCTAssertThrows(.lockOutputMissing, try LockVerifier.findLock(in: lockTransaction([change]), contract: contract,
                                                                          expectedAmount: amount, outputIndex: 3))
        }
    }

    /// Audit L-3: a dust or decoy output paying the contract (added by the provider, or
    /// anyone) does not fail a good lock: the output that verifies is the lock, even when
    /// the provider named the dust one. Two that verify: the named one, else the smallest.
    func testADustOutputPayingTheContractDoesNotHideTheGoodLock() throws {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let tx = lockTransaction([contract.lockOutput(value: 330), change, contract.lockOutput(value: amount)])
            let good = LockOutput(outPoint: OutPoint(txid: tx.txid, index: 2), value: amount)
            XCTAssertEqual(try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount), good)
            XCTAssertEqual(try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount, outputIndex: 0), good,
                           "the named dust output is passed over")
            XCTAssertEqual(try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount, outputIndex: 1), good,
                           "a named output paying elsewhere is passed over too")
            let two = lockTransaction([contract.lockOutput(value: amount + 10), contract.lockOutput(value: amount)])
            XCTAssertEqual(try LockVerifier.findLock(in: two, contract: contract, expectedAmount: amount).outPoint.index, 1)
            XCTAssertEqual(try LockVerifier.findLock(in: two, contract: contract, expectedAmount: amount, outputIndex: 0).value,
                           amount + 10)
            // None verifies: refused, naming the largest candidate.
            let short = lockTransaction([contract.lockOutput(value: 330), contract.lockOutput(value: amount - 1)])
            XCTAssertThrows(.lockAmountShort(expected: amount, actual: amount - 1),
                            try LockVerifier.findLock(in: short, contract: contract, expectedAmount: amount))
        }
    }

    func testAmountShort() {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let tx = lockTransaction([contract.lockOutput(value: amount - 1)])
            XCTAssertThrows(.lockAmountShort(expected: amount, actual: amount - 1),
                            try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount))
        }
    }

    /// The output the provider named pays a contract with other terms (here a timeout one
    /// block later, which would give the provider a longer hold): refused.
    func testWrongScript() {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let other = Fixture.contract(type, timeout: Fixture.timeout + 1)
            let tx = lockTransaction([change, other.lockOutput(value: amount)])
            XCTAssertThrows(.lockScriptMismatch(outputIndex: 1),
                            try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount, outputIndex: 1))
            XCTAssertThrows(.lockOutputMissing, try LockVerifier.findLock(in: tx, contract: contract, expectedAmount: amount))
            // The other contract type over the same terms is another script too.
            let otherType = Fixture.contract(type == .p2wsh ? .taprootBoltz : .p2wsh)
            XCTAssertThrows(.lockScriptMismatch(outputIndex: 0),
                            try LockVerifier.findLock(in: lockTransaction([otherType.lockOutput(value: amount)]),
                                                      contract: contract, expectedAmount: amount, outputIndex: 0))
        }
    }

    func testTimeoutTooCloseForTheFirstClaim() {
        for type in ContractType.allCases {
            let contract = Fixture.contract(type)
            let tx = lockTransaction([contract.lockOutput(value: amount)])
            XCTAssertThrows(.timeoutTooClose(blocksLeft: 6, required: 7),
                            try LockVerifier.verify(tx, contract: contract, expectedAmount: amount,
                                                    tipHeight: Fixture.timeout - 6, policy: policy))
            XCTAssertNoThrow(try LockVerifier.verify(tx, contract: contract, expectedAmount: amount,
                                                     tipHeight: Fixture.timeout - 7, policy: policy))
        }
    }
}
