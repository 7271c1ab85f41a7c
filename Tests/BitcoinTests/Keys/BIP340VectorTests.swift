import TestSupport
import XCTest
@testable import Bitcoin

/// BIP340 Schnorr signatures against `bip340/test-vectors.csv`: every row verifies as
/// expected, and every row with a secret key signs to exactly the expected signature.
final class BIP340VectorTests: XCTestCase {
    private struct Row {
        let index: Int
        let secretKey: [UInt8]?
        let publicKey: [UInt8]
        let auxRand: [UInt8]?
        let message: [UInt8]
        let signature: [UInt8]
        let verifies: Bool
        let comment: String
    }

    private func rows() throws -> (rows: [Row], dataLines: Int) {
        let lines = try Vectors.text("bip340/test-vectors.csv")
            .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .filter { !$0.isEmpty }
        XCTAssertEqual(lines.first?.hasPrefix("index,secret key,public key"), true, "unexpected header")
        let data = lines.dropFirst()
        let rows = try data.map { line -> Row in
            // The comment is last and may itself contain commas.
            let f = line.split(separator: ",", maxSplits: 7, omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, let index = Int(f[0]) else { throw BitcoinError.invalidHex }
            XCTAssert(f[6] == "TRUE" || f[6] == "FALSE", "row \(index): result \(f[6])")
            return Row(index: index,
                       secretKey: f[1].isEmpty ? nil : bytes(f[1]),
                       publicKey: bytes(f[2]),
                       auxRand: f[3].isEmpty ? nil : bytes(f[3]),
                       message: bytes(f[4]),
                       signature: bytes(f[5]),
                       verifies: f[6] == "TRUE",
                       comment: f.count > 7 ? f[7] : "")
        }
        return (rows, data.count)
    }

    func testEveryRowVerifiesAsExpected() throws {
        let (rows, dataLines) = try rows()
        XCTAssertEqual(rows.count, dataLines)
        XCTAssertEqual(rows.count, 19, "BIP340 has 19 vectors (0-18)")
        XCTAssertEqual(rows.map(\.index), Array(0..<rows.count))
        for row in rows {
            XCTAssertEqual(SchnorrSignature.verify(signature: row.signature, message: row.message, publicKey: row.publicKey),
                           row.verifies, "row \(row.index): \(row.comment)")
        }
        // Rows 5 and 14 have public keys that do not parse; they must fail quietly.
        XCTAssertThrowsError(try XOnlyPublicKey(rows[5].publicKey))
        XCTAssertThrowsError(try XOnlyPublicKey(rows[14].publicKey))
    }

    func testEverySigningRowProducesTheExpectedSignature() throws {
        let signing = try rows().rows.filter { $0.secretKey != nil }
        XCTAssertEqual(signing.count, 8, "rows 0-3 and 15-18 have secret keys")
        for row in signing {
            let key = try PrivateKey(row.secretKey!)
            XCTAssertEqual(key.xOnlyPublicKey.bytes, row.publicKey, "row \(row.index): public key")
            let signature = try SchnorrSignature.sign(message: row.message, with: key, auxiliaryRandomness: row.auxRand)
            XCTAssertEqual(signature.bytes.hex, row.signature.hex, "row \(row.index): signature")
            XCTAssertTrue(signature.verify(message: row.message, publicKey: key.xOnlyPublicKey), "row \(row.index)")
        }
    }

    func testDefaultSigningUsesFreshRandomnessAndVerifies() throws {
        let key = PrivateKey.random()
        let message = Array("peernode".utf8)
        let first = try SchnorrSignature.sign(message: message, with: key)
        let second = try SchnorrSignature.sign(message: message, with: key)
        XCTAssertNotEqual(first, second, "random aux data should give different nonces")
        XCTAssertTrue(first.verify(message: message, publicKey: key.xOnlyPublicKey))
        XCTAssertTrue(second.verify(message: message, publicKey: key.xOnlyPublicKey))
        XCTAssertFalse(first.verify(message: message + [0], publicKey: key.xOnlyPublicKey))
    }

    func testWrongSizedInputsAreRejected() throws {
        let key = PrivateKey.random()
        XCTAssertThrowsError(try SchnorrSignature.sign(message: [], with: key, auxiliaryRandomness: [1, 2, 3]))
        XCTAssertThrowsError(try SchnorrSignature([UInt8](repeating: 0, count: 63)))
        XCTAssertFalse(SchnorrSignature.verify(signature: [UInt8](repeating: 0, count: 65), message: [],
                                               publicKey: key.xOnlyPublicKey.bytes))
    }
}
