import XCTest
@testable import Bitcoin

/// Whole BIP327 sessions with fresh keys and nonces, beyond the fixed vectors: any number of
/// signers, repeated keys, tweaks; the aggregate is a BIP340 signature for the aggregate key.
final class MuSig2SessionTests: XCTestCase {
    private func run(keys secretKeys: [PrivateKey], tweaks: [([UInt8], Bool)], message: [UInt8]) throws -> (MuSig2KeyAggregation, SchnorrSignature) {
        var aggregation = try MuSig2KeyAggregation(publicKeys: secretKeys.map(\.publicKey))
        for (tweak, xOnly) in tweaks { aggregation = try aggregation.tweaked(by: tweak, xOnly: xOnly) }
        // A secret nonce cannot sit in an array (it is ~Copyable): each signer's is made
        // from its own rand' twice, once to publish R1, R2 and once to sign.
        let rands = secretKeys.map { _ in Secp256k1Context.randomBytes(count: 32) }
        func nonce(_ index: Int) throws -> MuSig2SecretNonce {
            try MuSig2SecretNonce(randomness: rands[index], publicKey: secretKeys[index].publicKey, secretKey: secretKeys[index],
                                  aggregateKeyBytes: aggregation.xOnlyPublicKey.bytes, message: message, extraInput: nil)
        }
        let publicNonces = try secretKeys.indices.map { try nonce($0).publicNonce }
        let session = MuSig2Session(keyAggregation: aggregation, aggregateNonce: MuSig2AggregateNonce(aggregating: publicNonces),
                                    message: message)
        var signatures = [MuSig2PartialSignature]()
        for (index, key) in secretKeys.enumerated() {
            let signature = try session.sign(try nonce(index), with: key)
            XCTAssertTrue(session.verify(signature, publicNonce: publicNonces[index], publicKey: key.publicKey))
            signatures.append(signature)
        }
        return (aggregation, try session.aggregate(signatures))
    }

    func testSessionsOfOneToFiveSignersWithAndWithoutTweaks() throws {
        for count in 1...5 {
            let keys = (0..<count).map { _ in PrivateKey.random() }
            let message = Secp256k1Context.randomBytes(count: 32)
            let tweaks: [([UInt8], Bool)] = [(Secp256k1Context.randomBytes(count: 32), false),
                                             (Secp256k1Context.randomBytes(count: 32), true)]
            for applied in [[], tweaks] {
                let (aggregation, signature) = try run(keys: keys, tweaks: applied, message: message)
                XCTAssertTrue(signature.verify(message: message, publicKey: aggregation.xOnlyPublicKey), "\(count) signers")
                XCTAssertFalse(signature.verify(message: Secp256k1Context.randomBytes(count: 32), publicKey: aggregation.xOnlyPublicKey))
            }
        }
    }

    /// A key listed twice signs twice (each with its own nonce); sorted keys work the same.
    func testRepeatedAndSortedKeys() throws {
        let a = PrivateKey.random()
        let b = PrivateKey.random()
        let message = Array("any length of message".utf8)
        let (repeated, signature) = try run(keys: [a, a, b], tweaks: [], message: message)
        XCTAssertTrue(signature.verify(message: message, publicKey: repeated.xOnlyPublicKey))
        let sortedKeys = [a, b].sorted { $0.publicKey < $1.publicKey }
        let (sorted, sortedSignature) = try run(keys: sortedKeys, tweaks: [], message: message)
        XCTAssertEqual(sorted.publicKeys, MuSig2KeyAggregation.sorted([a.publicKey, b.publicKey]))
        XCTAssertTrue(sortedSignature.verify(message: message, publicKey: sorted.xOnlyPublicKey))
    }

    func testMalformedInputsAreTypedErrors() {
        XCTAssertThrowsError(try MuSig2PublicNonce([UInt8](repeating: 2, count: 65), signer: 3)) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.invalidContribution(signer: 3, .publicNonce)))
        }
        XCTAssertThrowsError(try MuSig2AggregateNonce([UInt8](repeating: 0, count: 67))) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.invalidContribution(signer: nil, .aggregateNonce)))
        }
        XCTAssertThrowsError(try MuSig2PartialSignature([1, 2, 3])) {
            XCTAssertEqual($0 as? BitcoinError, .musig2(.invalidLength(what: "a MuSig2 partial signature", expected: 32, got: 3)))
        }
        // The messages name the culprit and say what to do, and never carry key material.
        XCTAssertEqual(MuSig2Error.invalidContribution(signer: 1, .partialSignature).description,
                       "signer 1 sent an invalid psig: leave that signer out of the session")
        XCTAssertTrue(MuSig2Error.secretNonceOutOfRange(part: 1).description.contains("new nonce round"))
    }
}
