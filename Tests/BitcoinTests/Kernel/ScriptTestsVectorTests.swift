import Foundation
import TestSupport
import XCTest
@testable import Bitcoin

/// Bitcoin Core's script_tests.json run through our transaction building and serialization
/// and Core's own interpreter (libbitcoinkernel). Each row's spend is built exactly as Core's
/// script_tests.cpp builds it, so a wrong byte anywhere in our encoding changes verdicts.
final class ScriptTestsVectorTests: XCTestCase {
    /// How each row was decided. The kernel takes consensus flags only, so a row that also
    /// names policy flags is checked under its consensus subset where that subset decides it.
    struct Tally: Equatable {
        /// Consensus flags only: the kernel's verdict must equal the expected one.
        var exact = 0
        /// Policy flags, expected OK: valid under all flags implies valid under fewer.
        var subsetValid = 0
        /// Policy flags, but the expected error is one no policy flag of the row raises, so
        /// consensus evaluation fails the same way: must be invalid under the subset.
        var subsetInvalid = 0
        /// Policy flags and an error a policy rule of the row may raise: a consensus-only
        /// kernel cannot confirm it. Counted, not checked.
        var notDecidable = 0
        var total: Int { exact + subsetValid + subsetInvalid + notDecidable }
    }

    func testEveryRowMatchesBitcoinCore() throws {
        let kernel = try makeKernelVerifier()
        guard let rows = try Vectors.json("bitcoin-core/script_tests.json") as? [[Any]] else {
            return XCTFail("script_tests.json is not an array of arrays")
        }
        // Core skips exactly the one-element rows as comments (`test.size() != 1` is an error).
        let nonCommentRows = rows.filter { $0.count != 1 }.count
        var tally = Tally()
        for row in rows where row.count != 1 {
            let text = Self.describe(row)
            do {
                try check(row, kernel: kernel, tally: &tally, text: text)
            } catch {
                XCTFail("\(error) in \(text)")
            }
        }
        print("script_tests.json: \(tally.total) rows: \(tally.exact) exact, \(tally.subsetValid) valid under the "
            + "consensus subset, \(tally.subsetInvalid) invalid under the consensus subset, "
            + "\(tally.notDecidable) not decidable without policy flags")
        XCTAssertEqual(tally.total, nonCommentRows)
        // The file's 1273 rows less its 51 comment rows (bitcoin-core/SOURCES.md).
        XCTAssertEqual(nonCommentRows, 1222)
        XCTAssertEqual(tally, Tally(exact: 240, subsetValid: 521, subsetInvalid: 332, notDecidable: 129))
    }

    private func check(_ row: [Any], kernel: KernelVerifier, tally: inout Tally, text: String) throws {
        var position = 0
        var witness: [[UInt8]] = []
        var amount: Int64 = 0
        var leafScript: [UInt8]?
        if let witnessColumn = row.first as? [Any] {
            // [item..., amount]: hex items, or Core's tapscript placeholders.
            guard let btc = witnessColumn.last as? NSNumber else { throw MalformedRow(why: "witness without amount") }
            amount = try Self.satoshis(btc)
            for element in witnessColumn.dropLast() {
                guard let item = element as? String else { throw MalformedRow(why: "witness item is not a string") }
                if item.hasPrefix("#SCRIPT#") {
                    let script = try CoreScriptAssembly.parse(String(item.dropFirst("#SCRIPT#".count))).bytes
                    witness.append(script)
                } else if item == "#CONTROLBLOCK#" {
                    // Core builds the tree from the item before it: the tapscript leaf.
                    guard let leaf = witness.last else { throw MalformedRow(why: "#CONTROLBLOCK# without a script") }
                    leafScript = leaf
                    witness.append(try SingleLeafTaproot.commit(leafScript: leaf).controlBlock)
                } else {
                    guard let value = [UInt8](hex: item) else { throw MalformedRow(why: "witness item is not hex") }
                    witness.append(value)
                }
            }
            position = 1
        }
        guard row.count >= position + 4,
              let scriptSigText = row[position] as? String, let scriptPubKeyText = row[position + 1] as? String,
              let flagsText = row[position + 2] as? String, let expected = row[position + 3] as? String else {
            throw MalformedRow(why: "expected scriptSig, scriptPubKey, flags, error")
        }
        let scriptSig = try CoreScriptAssembly.parse(scriptSigText)
        let scriptPubKey: Script
        if scriptPubKeyText == "0x51 0x20 #TAPROOTOUTPUT#" {
            guard let leafScript else { throw MalformedRow(why: "#TAPROOTOUTPUT# without a #CONTROLBLOCK#") }
            scriptPubKey = Script([.number(1), .pushData(try SingleLeafTaproot.commit(leafScript: leafScript).outputKey)])
        } else {
            scriptPubKey = try CoreScriptAssembly.parse(scriptPubKeyText)
        }
        var flags = try CoreScriptFlags.parse(flagsText)
        // Core's DoTest: CLEANSTACK is only defined together with P2SH and WITNESS.
        if flags.policy.contains("CLEANSTACK") { flags.consensus.formUnion([.p2sh, .witness]) }

        let (spend, spent) = Self.spend(scriptSig: scriptSig, witness: Witness(witness),
                                        scriptPubKey: scriptPubKey, amount: amount)
        // Our decoder must read back what we serialized (the kernel reads the same bytes).
        XCTAssertEqual(try Transaction(bytes: spend.serialized), spend, "round trip: \(text)")
        let valid = try kernel.verify(transaction: spend, inputIndex: 0, spentOutputs: [spent], flags: flags.consensus)

        let expectValid = expected == "OK"
        if flags.policy.isEmpty {
            tally.exact += 1
            XCTAssertEqual(valid, expectValid, "expected \(expected): \(text)")
        } else if expectValid {
            tally.subsetValid += 1
            XCTAssertTrue(valid, "expected OK under \(flags.consensus): \(text)")
        } else if !CoreScriptFlags.canComeFromPolicy(error: expected, flags: flags) {
            tally.subsetInvalid += 1
            XCTAssertFalse(valid, "expected \(expected) under \(flags.consensus): \(text)")
        } else {
            tally.notDecidable += 1
        }
    }

    /// Core's BuildCreditingTransaction and BuildSpendingTransaction (script_tests.cpp /
    /// transaction_utils.cpp). Returns the spend and the output it spends.
    static func spend(scriptSig: Script, witness: Witness, scriptPubKey: Script,
                      amount: Int64) -> (Transaction, TransactionOutput) {
        let credit = Transaction(
            version: 1,
            inputs: [TransactionInput(previousOutput: .null, scriptSig: Script([.zero, .zero]),
                                      sequence: TransactionInput.finalSequence)],
            outputs: [TransactionOutput(value: amount, scriptPubKey: scriptPubKey)],
            lockTime: 0)
        let spend = Transaction(
            version: 1,
            inputs: [TransactionInput(previousOutput: OutPoint(txid: credit.txid, index: 0), scriptSig: scriptSig,
                                      sequence: TransactionInput.finalSequence, witness: witness)],
            outputs: [TransactionOutput(value: amount, scriptPubKey: Script())],
            lockTime: 0)
        return (spend, credit.outputs[0])
    }

    /// Core's AmountFromValue: a BTC amount with at most 8 decimals, in satoshis.
    static func satoshis(_ btc: NSNumber) throws -> Int64 {
        let scaled = (btc.doubleValue * 100_000_000).rounded()
        guard abs(scaled / 100_000_000 - btc.doubleValue) < 1e-12, abs(scaled) <= Double(Transaction.maxMoney) else {
            throw MalformedRow(why: "amount \(btc) is not a BTC amount with 8 decimals")
        }
        return Int64(scaled)
    }

    static func describe(_ row: [Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: row, options: [.fragmentsAllowed]) else {
            return "\(row)"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
