import Bitcoin
import TestSupport
import XCTest
@testable import Transport

/// `pubky/sample_recovery.key` (pubky-core's sample, empty passphrase) and files sealed here.
final class PubkyRecoveryFileTests: XCTestCase {
    private func sample() throws -> [UInt8] { [UInt8](try Vectors.data("pubky/sample_recovery.key")) }

    func testTheSampleOpensToItsPubky() throws {
        let identity = try PubkyRecoveryFile.open(try sample(), passphrase: [])
        XCTAssertEqual(identity.pubky.z32, "htbqf4wzp9c1qc5r77h86shpekcqop5icognmbwyb3szhkxnh5wy")
        XCTAssertEqual(identity.publicKey.hex, "e442e2ea976fd9273364ef787f5b8d4298e83775640c2586800e6d7e29e2e6e8")
        // The identity signs as that key.
        let message = Array("peernode".utf8)
        XCTAssertTrue(identity.pubky.isValidSignature(identity.sign(message), for: message))
    }

    func testAWrongPassphraseIsRefused() throws {
        XCTAssertThrowsError(try PubkyRecoveryFile.open(try sample(), passphrase: Array("secret".utf8))) { error in
            XCTAssertEqual(error as? RecoveryFileError, .wrongPassphraseOrDamaged)
            XCTAssertEqual("\(error)", "the recovery file did not open: the passphrase is wrong, or the file is damaged")
        }
    }

    func testAChangedByteAnywhereInTheBoxIsRefused() throws {
        let file = try sample()
        let boxStart = PubkyRecoveryFile.specLine.utf8.count + 1
        for index in stride(from: boxStart, to: file.count, by: 7) {
            var damaged = file
            damaged[index] ^= 0x01
            XCTAssertThrowsError(try PubkyRecoveryFile.open(damaged, passphrase: [])) { error in
                XCTAssertEqual(error as? RecoveryFileError, .wrongPassphraseOrDamaged, "byte \(index)")
            }
        }
    }

    func testATruncatedOrLongerFileIsRefusedByItsLength() throws {
        let file = try sample()
        XCTAssertThrowsError(try PubkyRecoveryFile.open(Array(file.dropLast()), passphrase: [])) { error in
            XCTAssertEqual(error as? RecoveryFileError, .wrongLength(71))
        }
        XCTAssertThrowsError(try PubkyRecoveryFile.open(file + [0], passphrase: [])) { error in
            XCTAssertEqual(error as? RecoveryFileError, .wrongLength(73))
        }
    }

    func testAFileWithoutTheSpecLineIsRefused() throws {
        let box = Array(try sample().dropFirst(PubkyRecoveryFile.specLine.utf8.count + 1))
        for prefix in ["", "pubky.org/recover\n", "PUBKY.ORG/RECOVERY\n", "pubky.org/recovery \n"] {
            XCTAssertThrowsError(try PubkyRecoveryFile.open(Array(prefix.utf8) + box, passphrase: [])) { error in
                XCTAssertEqual(error as? RecoveryFileError, .notARecoveryFile, prefix)
            }
        }
    }

    func testTheLegacySpecLineIsRead() throws {
        let box = Array(try sample().dropFirst(PubkyRecoveryFile.specLine.utf8.count + 1))
        let identity = try PubkyRecoveryFile.open(Array("pkarr.org/recovery\n".utf8) + box, passphrase: [])
        XCTAssertEqual(identity.pubky.z32, "htbqf4wzp9c1qc5r77h86shpekcqop5icognmbwyb3szhkxnh5wy")
    }

    func testASealedFileOpensOnlyWithItsPassphrase() throws {
        let seed = try NodeSeed(bytes: [UInt8](0..<32))
        let file = try PubkyRecoveryFile.seal(seed, passphrase: Array("correct horse".utf8))
        XCTAssertEqual(file.count, 19 + PubkyRecoveryFile.boxedLength)
        let opened = try PubkyRecoveryFile.open(file, passphrase: Array("correct horse".utf8))
        XCTAssertEqual(opened.pubky, NodeIdentity(seed: seed).pubky)
        XCTAssertThrowsError(try PubkyRecoveryFile.open(file, passphrase: Array("correct horse ".utf8)))
        XCTAssertThrowsError(try PubkyRecoveryFile.open(file, passphrase: []))
    }
}
