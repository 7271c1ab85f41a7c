import XCTest
@testable import Bitcoin

/// Small named checks of the sighash rules that the vector suites exercise only in passing.
final class SighashBehaviourTests: XCTestCase {
    /// Two inputs, one output: input 1 has no output of its own index.
    private let transaction = Transaction(
        version: 2,
        inputs: [
            TransactionInput(previousOutput: OutPoint(txid: .zero, index: 0), sequence: 0xffff_fffd),
            TransactionInput(previousOutput: OutPoint(txid: .zero, index: 1), sequence: 0xffff_fffe),
        ],
        outputs: [TransactionOutput(value: 50_000, scriptPubKey: Script([.number(1), .push([UInt8](repeating: 7, count: 32))]))],
        lockTime: 800_000)

    private var spentOutputs: [TransactionOutput] {
        [TransactionOutput(value: 30_000, scriptPubKey: Script([.number(1), .push([UInt8](repeating: 1, count: 32))])),
         TransactionOutput(value: 25_000, scriptPubKey: Script([.number(1), .push([UInt8](repeating: 2, count: 32))]))]
    }

    func testLegacySingleWithoutMatchingOutputSignsTheNumberOne() throws {
        let sighash = LegacySighash(transaction: transaction)
        let one = [1] + [UInt8](repeating: 0, count: 31)
        // Core decides SINGLE from the low five bits, with or without ANYONECANPAY.
        for hashType in [SighashType.single, .singleAnyoneCanPay, SighashType(rawValue: 0x43)] {
            XCTAssertEqual(try sighash.hash(inputIndex: 1, scriptCode: Script(), hashType: hashType), one, "\(hashType)")
        }
        XCTAssertNotEqual(try sighash.hash(inputIndex: 0, scriptCode: Script(), hashType: .single), one)
        XCTAssertNotEqual(try sighash.hash(inputIndex: 1, scriptCode: Script(), hashType: .all), one)
    }

    func testLegacyCodeSeparatorsAreRemovedFromTheScriptCode() throws {
        let sighash = LegacySighash(transaction: transaction)
        let plain = Script([.dup, .hash160, .push([UInt8](repeating: 9, count: 20)), .equalVerify, .checkSig])
        let separated = Script([.codeSeparator, .dup, .hash160, .push([UInt8](repeating: 9, count: 20)), .codeSeparator,
                                .equalVerify, .checkSig, .codeSeparator])
        XCTAssertEqual(try sighash.hash(inputIndex: 0, scriptCode: separated, hashType: .all),
                       try sighash.hash(inputIndex: 0, scriptCode: plain, hashType: .all))
        // A 0xab byte inside a push is data, not a separator.
        let pushedSeparator = Script([.push([0xab]), .checkSig])
        var writer = ByteWriter()
        LegacySighash.writeScriptCode(pushedSeparator.bytes, to: &writer)
        XCTAssertEqual(writer.bytes, [3, 0x01, 0xab, 0xac])
    }

    func testInputIndexOutOfRangeIsRejected() throws {
        XCTAssertThrowsError(try LegacySighash(transaction: transaction).hash(inputIndex: 2, scriptCode: Script(), hashType: .all))
        XCTAssertThrowsError(try SegwitV0Sighash(transaction: transaction)
            .hash(inputIndex: 2, scriptCode: Script(), amount: 1, hashType: .all))
        XCTAssertThrowsError(try TaprootSighash(transaction: transaction, spentOutputs: spentOutputs).hash(inputIndex: 2))
    }

    func testTaprootRejectsUndefinedHashTypes() throws {
        let sighash = try TaprootSighash(transaction: transaction, spentOutputs: spentOutputs)
        for raw: UInt32 in [0x04, 0x20, 0x43, 0x80, 0x84, 0xff, 0x101] {
            XCTAssertThrowsError(try sighash.hash(inputIndex: 0, hashType: SighashType(rawValue: raw)), "0x\(String(raw, radix: 16))") {
                guard case BitcoinError.invalidSighash = $0 else { return XCTFail("wrong error \($0)") }
            }
        }
        for raw: UInt32 in [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83] {
            XCTAssertNoThrow(try sighash.hash(inputIndex: 0, hashType: SighashType(rawValue: raw)))
        }
    }

    func testTaprootRejectsMissingSpentOutputs() throws {
        for spent in [[], Array(spentOutputs.prefix(1)), spentOutputs + spentOutputs.prefix(1)] {
            XCTAssertThrowsError(try TaprootSighash(transaction: transaction, spentOutputs: spent)) {
                guard case BitcoinError.invalidSighash = $0 else { return XCTFail("wrong error \($0)") }
            }
        }
    }

    func testTaprootRejectsSingleWithoutMatchingOutput() throws {
        let sighash = try TaprootSighash(transaction: transaction, spentOutputs: spentOutputs)
        XCTAssertNoThrow(try sighash.hash(inputIndex: 0, hashType: .single))
        for hashType in [SighashType.single, .singleAnyoneCanPay] {
            XCTAssertThrowsError(try sighash.hash(inputIndex: 1, hashType: hashType)) {
                guard case BitcoinError.invalidSighash = $0 else { return XCTFail("wrong error \($0)") }
            }
        }
    }

    func testTaprootDefaultDiffersFromAllOnlyInTheHashTypeByte() throws {
        let sighash = try TaprootSighash(transaction: transaction, spentOutputs: spentOutputs)
        let defaultMessage = try sighash.signatureMessage(inputIndex: 0, hashType: .default)
        let allMessage = try sighash.signatureMessage(inputIndex: 0, hashType: .all)
        XCTAssertEqual(defaultMessage.count, allMessage.count)
        XCTAssertEqual(Array(defaultMessage.dropFirst(2)), Array(allMessage.dropFirst(2)))
        XCTAssertEqual(defaultMessage[1], 0x00)
        XCTAssertEqual(allMessage[1], 0x01)
    }

    func testTaprootAnnexMustCarryItsTag() throws {
        let sighash = try TaprootSighash(transaction: transaction, spentOutputs: spentOutputs)
        XCTAssertThrowsError(try sighash.hash(inputIndex: 0, annex: [0x51, 0x50]))
        XCTAssertThrowsError(try sighash.hash(inputIndex: 0, annex: []))
        XCTAssertNotEqual(try sighash.hash(inputIndex: 0, annex: [0x50]), try sighash.hash(inputIndex: 0))
    }

    func testScriptPathLeafHashMustBe32Bytes() {
        XCTAssertThrowsError(try TaprootSighash.ScriptPath(leafHash: [UInt8](repeating: 0, count: 31)))
    }
}
