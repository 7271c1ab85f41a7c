import Bitcoin
import HTLC
@testable import PeerNode
import XCTest

/// Coin selection: changeless sets when one exists, largest first with change otherwise,
/// fees from the exact signed size, dust change to the fee, and the amounts of a shortfall.
final class CoinSelectionTests: XCTestCase {
    private let keys = try! WalletKeys(seed: [UInt8](repeating: 0x01, count: 32), network: .regtest)
    private let payee = TransactionOutput(value: 0, scriptPubKey: Script(bytes: [0x51, 0x20] + [UInt8](repeating: 0x99, count: 32)))
    private let rate = try! FeeRate(satPerVByte: 2)
    private let dust: Int64 = 330

    private var changeScript: Script { keys.script(for: WalletKeyPath(chain: .change, index: 0))! }

    private func coins(_ values: [Int64]) -> [WalletCoin] {
        values.enumerated().map { index, value in
            WalletCoin(outPoint: OutPoint(txid: try! TransactionID(bytes: [UInt8](repeating: UInt8(index + 1), count: 32)), index: 0),
                       output: TransactionOutput(value: value, scriptPubKey: keys.script(for: WalletKeyPath(chain: .receive, index: UInt32(index)))!),
                       path: WalletKeyPath(chain: .receive, index: UInt32(index)), height: 1, isCoinbase: false)
        }
    }

    private func paying(_ value: Int64) -> [TransactionOutput] {
        var output = payee
        output.value = value
        return [output]
    }

    private func select(_ available: [WalletCoin], _ amount: Int64) throws -> CoinSelection {
        try CoinSelection.select(from: available, paying: paying(amount), changeScript: changeScript, changeDust: dust, feeRate: rate)
    }

    func testLargestFirstWithChangePaysTheFeeOfTheSignedSize() throws {
        let selection = try select(coins([1_000_000, 5_000_000, 3_000_000]), 6_000_000)
        XCTAssertEqual(selection.coins.map(\.value), [5_000_000, 3_000_000])
        let size = TaprootSpendSize.virtualSize(inputCount: 2, outputs: paying(6_000_000) + [TransactionOutput(value: 0, scriptPubKey: changeScript)])
        XCTAssertEqual(selection.virtualSize, size)
        XCTAssertEqual(selection.fee, rate.fee(forVirtualSize: size))
        XCTAssertEqual(selection.change, 8_000_000 - 6_000_000 - selection.fee)
    }

    func testBranchAndBoundFindsASetThatNeedsNoChange() throws {
        let available = coins([5_000_000, 3_000_000, 2_000_500, 1_000_000])
        // 3,000,000 + 1,000,000 covers the amount plus the fee of a 2-input, 1-output
        // transaction with 100 sat to spare: less than a change output would cost.
        let fee = rate.fee(forVirtualSize: TaprootSpendSize.virtualSize(inputCount: 2, outputs: paying(1)))
        let amount = 4_000_000 - fee - 100
        let selection = try select(available, amount)
        XCTAssertNil(selection.change)
        XCTAssertEqual(Set(selection.coins.map(\.value)), [3_000_000, 1_000_000])
        XCTAssertEqual(selection.fee, fee + 100)
    }

    func testChangeBelowDustGoesToTheFee() throws {
        let withChange = TaprootSpendSize.virtualSize(inputCount: 1, outputs: paying(1) + [TransactionOutput(value: 0, scriptPubKey: changeScript)])
        let amount = 1_000_000 - rate.fee(forVirtualSize: withChange) - 200
        let selection = try select(coins([1_000_000]), amount)
        XCTAssertNil(selection.change)
        XCTAssertEqual(selection.fee, 1_000_000 - amount)
        XCTAssertEqual(selection.virtualSize, TaprootSpendSize.virtualSize(inputCount: 1, outputs: paying(amount)))
    }

    func testAShortfallNamesWhatWasNeededAndWhatWasThere() {
        let available = coins([40_000, 30_000])
        let fee = rate.fee(forVirtualSize: TaprootSpendSize.virtualSize(inputCount: 2, outputs: paying(1)))
        XCTAssertThrowsError(try select(available, 70_000)) { error in
            XCTAssertEqual(error as? WalletError, .insufficientFunds(needed: 70_000 + fee, available: 70_000))
        }
    }

    func testCoinsWorthLessThanTheirInputFeeAreLeftOut() throws {
        // At 2 sat/vB an input costs 115 sat: a 100-sat coin would lower the total.
        let selection = try select(coins([100, 100_000]), 50_000)
        XCTAssertEqual(selection.coins.map(\.value), [100_000])
    }

    func testSignedTransactionsHaveExactlyTheComputedSize() throws {
        for inputCount in 1...4 {
            let available = coins((0..<inputCount).map { _ in 100_000 })
            let outputs = paying(50_000) + [TransactionOutput(value: 10_000, scriptPubKey: changeScript)]
            let unsigned = Transaction(inputs: available.map { TransactionInput(previousOutput: $0.outPoint,
                                                                                 sequence: TransactionInput.replaceableSequence) },
                                       outputs: outputs, lockTime: 500)
            let signed = try WalletSigner.sign(unsigned, spentOutputs: available.map(\.output), keys: keys)
            XCTAssertEqual(signed.virtualSize, TaprootSpendSize.virtualSize(inputCount: inputCount, outputs: outputs, lockTime: 500))
            XCTAssertTrue(signed.inputs.allSatisfy { $0.witness.stack.map(\.count) == [64] })
        }
    }
}
