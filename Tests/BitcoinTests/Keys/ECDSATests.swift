import XCTest
@testable import Bitcoin

/// ECDSA over secp256k1: RFC 6979 determinism (the widely published private-key-1
/// "Satoshi Nakamoto" vector), DER and compact forms, low-S, and verification failures.
final class ECDSATests: XCTestCase {
    private var one: [UInt8] { [UInt8](repeating: 0, count: 31) + [1] }

    func testRFC6979KnownAnswerForPrivateKeyOne() throws {
        let key = try PrivateKey(one)
        let digest = SHA256.hash(Array("Satoshi Nakamoto".utf8))
        let signature = try ECDSASignature.sign(digest: digest, with: key)
        XCTAssertEqual(signature.der.hex,
                       "3045022100934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8"
                       + "02202442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5")
        XCTAssertTrue(signature.verify(digest: digest, publicKey: key.publicKey))
        // The public key of 1 is the generator G.
        XCTAssertEqual(key.publicKey.compressed.hex, "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
    }

    func testSignVerifyRoundTripAndDeterminism() throws {
        let key = PrivateKey.random()
        let digest = SHA256.hash(Array("peernode".utf8))
        let signature = try ECDSASignature.sign(digest: digest, with: key)
        XCTAssertEqual(try ECDSASignature.sign(digest: digest, with: key), signature, "RFC 6979 is deterministic")
        XCTAssertTrue(signature.verify(digest: digest, publicKey: key.publicKey))
        XCTAssertFalse(signature.verify(digest: digest, publicKey: PrivateKey.random().publicKey))
        XCTAssertTrue(signature.isLowS)
    }

    func testAnyChangedByteFailsVerification() throws {
        let key = PrivateKey.random()
        let digest = SHA256.hash([1, 2, 3])
        let signature = try ECDSASignature.sign(digest: digest, with: key)
        for index in 0..<32 {
            var changed = digest
            changed[index] ^= 0x01
            XCTAssertFalse(signature.verify(digest: changed, publicKey: key.publicKey), "digest byte \(index)")
        }
        for index in 0..<64 {
            var changed = signature.compact
            changed[index] ^= 0x80
            // Some flips push r or s out of range, which fails to parse: that is a failure too.
            if let tampered = try? ECDSASignature(compact: changed) {
                XCTAssertFalse(tampered.verify(digest: digest, publicKey: key.publicKey), "signature byte \(index)")
            }
        }
    }

    func testDERAndCompactRoundTrip() throws {
        for _ in 0..<20 {
            let signature = try ECDSASignature.sign(digest: Secp256k1Context.randomBytes(count: 32), with: .random())
            XCTAssertEqual(try ECDSASignature(der: signature.der), signature)
            XCTAssertEqual(try ECDSASignature(compact: signature.compact), signature)
            XCTAssertLessThanOrEqual(signature.der.count, 72)
            XCTAssertEqual(signature.der.first, 0x30)
        }
    }

    func testNonStrictDERIsRejected() throws {
        let signature = try ECDSASignature.sign(digest: SHA256.hash([9]), with: .random())
        let der = signature.der
        XCTAssertThrowsError(try ECDSASignature(der: der + [0x01]), "trailing byte (e.g. a sighash type)")
        XCTAssertThrowsError(try ECDSASignature(der: Array(der.dropLast())), "truncated")
        var wrongLength = der
        wrongLength[1] &+= 1
        XCTAssertThrowsError(try ECDSASignature(der: wrongLength), "wrong sequence length")
        XCTAssertThrowsError(try ECDSASignature(der: []))
        XCTAssertThrowsError(try ECDSASignature(compact: [UInt8](repeating: 0xff, count: 64)), "r, s >= n")
        XCTAssertThrowsError(try ECDSASignature(compact: [UInt8](repeating: 1, count: 63)))
    }

    func testHighSVerifiesOnlyWhenAllowed() throws {
        let key = PrivateKey.random()
        let digest = SHA256.hash([4, 5, 6])
        let low = try ECDSASignature.sign(digest: digest, with: key)
        // s' = n - s: the other, equally valid solution, in high-S form.
        let n = Secp256k1Scalar.orderBytes
        let s = Secp256k1Scalar(exactly: Array(low.compact[32...]))!
        let highS = (-s).bytes
        XCTAssertEqual(Secp256k1Scalar(exactly: highS).map { $0 + s }, .zero, "n - s + s = 0 mod n")
        XCTAssertNotEqual(highS, n)
        let high = try ECDSASignature(compact: Array(low.compact[..<32]) + highS)
        XCTAssertFalse(high.isLowS)
        XCTAssertEqual(high.normalizedS(), low)
        XCTAssertFalse(high.verify(digest: digest, publicKey: key.publicKey))
        XCTAssertTrue(high.verify(digest: digest, publicKey: key.publicKey, allowHighS: true))
    }

    func testKeyValidationAndRedaction() throws {
        XCTAssertThrowsError(try PrivateKey([UInt8](repeating: 0, count: 32)), "zero")
        XCTAssertThrowsError(try PrivateKey(Secp256k1Scalar.orderBytes), "n")
        XCTAssertThrowsError(try PrivateKey([UInt8](repeating: 1, count: 31)), "short")
        var nMinusOne = Secp256k1Scalar.orderBytes
        nMinusOne[31] -= 1
        XCTAssertNoThrow(try PrivateKey(nMinusOne))

        let key = PrivateKey.random()
        let secretHex = key.bytes.hex
        XCTAssertFalse("\(key)".contains(secretHex))
        XCTAssertFalse(String(reflecting: key).contains(secretHex))
        var dumped = ""
        dump(key, to: &dumped)
        XCTAssertFalse(dumped.contains(secretHex))
        XCTAssertFalse(dumped.contains("bytes"), "reflection must not expose the stored bytes")
    }

    func testPublicKeyEncodings() throws {
        let key = try PrivateKey(one).publicKey
        let uncompressed = key.serialized(compressed: false)
        XCTAssertEqual(uncompressed.hex, "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                       + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
        XCTAssertEqual(try PublicKey(uncompressed), key)
        XCTAssertEqual(try PublicKey(key.compressed), key)
        XCTAssertFalse(key.hasOddY)
        XCTAssertTrue(key.negated.hasOddY)
        XCTAssertEqual(key.negated.xOnlyPublicKey, key.xOnlyPublicKey)
        XCTAssertEqual(key.xOnlyPublicKey.publicKey, key)
        var hybrid = uncompressed
        hybrid[0] = 0x06
        XCTAssertThrowsError(try PublicKey(hybrid), "hybrid encoding")
        XCTAssertThrowsError(try PublicKey([0x02] + [UInt8](repeating: 0, count: 31) + [7]), "not on the curve")
        XCTAssertThrowsError(try PublicKey(Array(key.compressed.dropLast())))
        XCTAssertThrowsError(try XOnlyPublicKey([UInt8](repeating: 0xff, count: 32)), ">= p")
    }
}
