import Foundation
import TestSupport
import XCTest
@testable import Bitcoin

/// Bitcoin Core's tx_valid.json and tx_invalid.json: each transaction decoded by our
/// `Transaction`, re-serialized byte for byte, checked by our `checkSanity` (Core's
/// CheckTransaction) and, input by input, by Core's interpreter on the bytes we serialize.
///
/// The flags column differs between the files (see their headers): in tx_valid it lists
/// flags to EXCLUDE from the full set, in tx_invalid the flags to APPLY, or BADTX when the
/// transaction must fail CheckTransaction.
final class TransactionVectorTests: XCTestCase {
    /// One row: the outputs its inputs spend, the raw transaction, the flags column.
    struct Row {
        var spent: [OutPoint: TransactionOutput]
        var raw: [UInt8]
        var flags: String
        var text: String
    }

    func testValidTransactionsPassEveryConsensusCheck() throws {
        let kernel = try makeKernelVerifier()
        let (rows, nonCommentRows) = try Self.rows("bitcoin-core/tx_valid.json")
        var checked = 0
        for row in rows {
            do {
                let transaction = try Self.decodeRoundTrip(row)
                XCTAssertNoThrow(try transaction.checkSanity(), "CheckTransaction: \(row.text)")
                let excluded = try CoreScriptFlags.parse(row.flags)
                // All flags minus the excluded ones, policy included, is what Core applies; a
                // transaction valid under that is valid under its consensus part (removing flags
                // never invalidates). Core's test rejects rows whose set is not a valid combination.
                let flags = ScriptVerificationFlags.all.subtracting(excluded.consensus)
                XCTAssertFalse(flags.contains(.witness) && !flags.contains(.p2sh), "bad test flags: \(row.text)")
                let spentOutputs = try Self.spentOutputs(of: transaction, row)
                for index in transaction.inputs.indices {
                    let valid = try kernel.verify(transaction: transaction, inputIndex: index,
                                                  spentOutputs: spentOutputs, flags: flags)
                    XCTAssertTrue(valid, "input \(index) under \(flags): \(row.text)")
                }
                checked += 1
            } catch {
                XCTFail("\(error) in \(row.text)")
            }
        }
        print("tx_valid.json: \(rows.count) rows, \(checked) checked (every input valid under all consensus flags "
            + "less the excluded ones, CheckTransaction passes)")
        XCTAssertEqual(rows.count, nonCommentRows)
        XCTAssertEqual(checked, 121)
    }

    struct InvalidTally: Equatable {
        /// BADTX: our CheckTransaction equivalent must reject the transaction.
        var badTransaction = 0
        /// Consensus flags only: some input must fail in the kernel.
        var exact = 0
        /// A policy flag is applied. Core's test requires the flags to be minimal (dropping any
        /// one makes the transaction valid), so the failure is that policy rule's and the
        /// consensus part alone must find every input VALID; the failure itself cannot be
        /// confirmed by a consensus-only kernel.
        var policyOnly = 0
        var total: Int { badTransaction + exact + policyOnly }
    }

    func testInvalidTransactionsFailCheckTransactionOrAScript() throws {
        let kernel = try makeKernelVerifier()
        let (rows, nonCommentRows) = try Self.rows("bitcoin-core/tx_invalid.json")
        var tally = InvalidTally()
        for row in rows {
            do {
                let transaction = try Self.decodeRoundTrip(row)
                // As in Core: a transaction failing CheckTransaction must be marked BADTX, and
                // one marked BADTX must fail it.
                if row.flags == "BADTX" {
                    XCTAssertThrowsError(try transaction.checkSanity(), "BADTX passed CheckTransaction: \(row.text)")
                    tally.badTransaction += 1
                    continue
                }
                try transaction.checkSanity()
                let applied = try CoreScriptFlags.parse(row.flags)
                let allValid = try kernel.verifyAll(transaction: transaction,
                                                    spentOutputs: try Self.spentOutputs(of: transaction, row),
                                                    flags: applied.consensus)
                if applied.policy.isEmpty {
                    XCTAssertFalse(allValid, "every input passed under \(applied.consensus): \(row.text)")
                    tally.exact += 1
                } else {
                    XCTAssertTrue(allValid, "fails by consensus alone, not by \(applied.policy): \(row.text)")
                    tally.policyOnly += 1
                }
            } catch {
                XCTFail("\(error) in \(row.text)")
            }
        }
        print("tx_invalid.json: \(tally.total) rows: \(tally.badTransaction) BADTX rejected by CheckTransaction, "
            + "\(tally.exact) rejected by the kernel under consensus flags, \(tally.policyOnly) failing only by a "
            + "policy flag (not decidable; consensus part verified valid)")
        XCTAssertEqual(tally.total, nonCommentRows)
        XCTAssertEqual(rows.count, nonCommentRows)
        XCTAssertEqual(tally, InvalidTally(badTransaction: 9, exact: 70, policyOnly: 14))
    }

    // MARK: - Rows

    /// The rows of a tx vector file and the number of rows that are not comments. Core treats
    /// a row as a test exactly when its first element is an array; anything else is a comment.
    static func rows(_ path: String) throws -> ([Row], Int) {
        guard let json = try Vectors.json(path) as? [[Any]] else { throw MalformedRow(why: "\(path) is not an array of arrays") }
        let tests = json.filter { $0.first is [Any] }
        return (try tests.map(row), tests.count)
    }

    private static func row(_ json: [Any]) throws -> Row {
        let text = ScriptTestsVectorTests.describe(json)
        guard json.count == 3, let prevouts = json[0] as? [[Any]], let hex = json[1] as? String,
              let flags = json[2] as? String, let raw = [UInt8](hex: hex) else {
            throw MalformedRow(why: "expected [[prevouts], tx hex, flags]: \(text)")
        }
        var spent: [OutPoint: TransactionOutput] = [:]
        for prevout in prevouts {
            guard (3...4).contains(prevout.count), let txid = prevout[0] as? String, let index = prevout[1] as? NSNumber,
                  let asm = prevout[2] as? String, let index32 = Int32(exactly: index.int64Value) else {
                throw MalformedRow(why: "prevout \(prevout) in \(text)")
            }
            // Core reads the index as an int and casts it, so -1 is the null index 0xffffffff.
            let outpoint = OutPoint(txid: try TransactionID(hex: txid), index: UInt32(bitPattern: index32))
            var amount: Int64 = 0
            if prevout.count == 4 {
                guard let value = prevout[3] as? NSNumber, Double(value.int64Value) == value.doubleValue else {
                    throw MalformedRow(why: "amount in \(text)")
                }
                amount = value.int64Value
            }
            spent[outpoint] = TransactionOutput(value: amount, scriptPubKey: try CoreScriptAssembly.parse(asm))
        }
        return Row(spent: spent, raw: raw, flags: flags, text: text)
    }

    /// Decodes with our `Transaction` and requires the exact bytes back: the kernel is given
    /// our serialization, so a lossy decode would test a different transaction.
    static func decodeRoundTrip(_ row: Row) throws -> Transaction {
        let transaction = try Transaction(bytes: row.raw)
        XCTAssertEqual(transaction.serialized.hex, row.raw.hex, "re-serialization differs: \(row.text)")
        return transaction
    }

    /// The output each input spends, from the row's prevout list (Core's `map.at`: a missing
    /// prevout is a bad test).
    static func spentOutputs(of transaction: Transaction, _ row: Row) throws -> [TransactionOutput] {
        try transaction.inputs.map { input in
            guard let output = row.spent[input.previousOutput] else {
                throw MalformedRow(why: "no prevout given for \(input.previousOutput)")
            }
            return output
        }
    }
}
