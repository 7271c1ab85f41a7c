import Bitcoin
import XCTest

/// Recoverable ECDSA (libsecp256k1's recovery module), as BOLT11 uses it.
final class RecoverableSignatureTests: XCTestCase {
    /// The curve order n, big-endian.
    private let order: [UInt8] = [UInt8](hex: "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")!

    func testSignRecoverRoundTrip() throws {
        for index in 0..<16 {
            let key = PrivateKey.random()
            let digest = SHA256.hash(Array("invoice \(index)".utf8))
            let signature = try RecoverableSignature.sign(digest: digest, with: key)
            XCTAssertTrue(RecoverableSignature.recoveryIDs.contains(signature.recoveryID))
            XCTAssertEqual(try signature.recoverPublicKey(digest: digest), key.publicKey)
            // Same nonce (RFC 6979) as plain signing, so the same r || s.
            XCTAssertEqual(signature.ecdsaSignature, try ECDSASignature.sign(digest: digest, with: key))
            XCTAssertTrue(signature.ecdsaSignature.isLowS)
            XCTAssertTrue(signature.ecdsaSignature.verify(digest: digest, publicKey: key.publicKey))
            let parsed = try RecoverableSignature(compact: signature.compact, recoveryID: signature.recoveryID)
            XCTAssertEqual(parsed, signature)
        }
    }

    func testRecoveryIDOutOfRangeIsRejected() throws {
        let signature = try RecoverableSignature.sign(digest: SHA256.hash([1]), with: PrivateKey.random())
        for id: UInt8 in [4, 5, 27, 31, 255] {
            XCTAssertThrowsError(try RecoverableSignature(compact: signature.compact, recoveryID: id), "id \(id)")
        }
    }

    func testOtherRecoveryIDOrOtherDigestGivesAnotherKeyOrNone() throws {
        let key = PrivateKey.random()
        let digest = SHA256.hash([7])
        let signature = try RecoverableSignature.sign(digest: digest, with: key)
        for id in RecoverableSignature.recoveryIDs where id != signature.recoveryID {
            let other = try RecoverableSignature(compact: signature.compact, recoveryID: id)
            if let recovered = try? other.recoverPublicKey(digest: digest) {
                XCTAssertNotEqual(recovered, key.publicKey, "id \(id)")
            }
        }
        XCTAssertNotEqual(try signature.recoverPublicKey(digest: SHA256.hash([8])), key.publicKey)
    }

    /// Negating s negates the nonce point, so the high-S twin recovers the signer with
    /// recovery id bit 0 flipped (and a different key with the original id).
    func testHighSTwinRecoversWithFlippedParity() throws {
        let key = PrivateKey.random()
        let digest = SHA256.hash([9])
        let signature = try RecoverableSignature.sign(digest: digest, with: key)
        let highS = Array(signature.compact[..<32]) + subtract(order, Array(signature.compact[32...]))
        let twin = try RecoverableSignature(compact: highS, recoveryID: signature.recoveryID ^ 1)
        XCTAssertFalse(twin.ecdsaSignature.isLowS)
        XCTAssertEqual(try twin.recoverPublicKey(digest: digest), key.publicKey)
        let sameID = try RecoverableSignature(compact: highS, recoveryID: signature.recoveryID)
        XCTAssertNotEqual(try sameID.recoverPublicKey(digest: digest), key.publicKey)
    }

    func testOutOfRangeAndMalformedInputsAreRejected() throws {
        XCTAssertThrowsError(try RecoverableSignature(compact: order + [UInt8](repeating: 1, count: 32), recoveryID: 0), "r = n")
        XCTAssertThrowsError(try RecoverableSignature(compact: [UInt8](repeating: 1, count: 63), recoveryID: 0))
        let zero = try RecoverableSignature(compact: [UInt8](repeating: 0, count: 64), recoveryID: 0)
        XCTAssertThrowsError(try zero.recoverPublicKey(digest: SHA256.hash([1])), "r = s = 0 recovers nothing")
        let signature = try RecoverableSignature.sign(digest: SHA256.hash([1]), with: PrivateKey.random())
        XCTAssertThrowsError(try signature.recoverPublicKey(digest: [1, 2, 3]))
        XCTAssertThrowsError(try RecoverableSignature.sign(digest: [1, 2, 3], with: PrivateKey.random()))
    }

    /// a - b for 32-byte big-endian a >= b.
    private func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var value = Int(a[index]) - Int(b[index]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            out[index] = UInt8(value)
        }
        return out
    }
}
