import Bitcoin
import CSodium
import TestSupport
import XCTest
@testable import Transport

final class IdentityTests: XCTestCase {
    private let seedBytes = [UInt8](0..<32)

    func testSameSeedGivesSamePubky() throws {
        let first = NodeIdentity(seed: try NodeSeed(bytes: seedBytes))
        let second = NodeIdentity(seed: try NodeSeed(bytes: seedBytes))
        XCTAssertEqual(first.pubky, second.pubky)
        XCTAssertEqual(first.pubky.z32.count, 52)
        XCTAssertEqual(try Pubky(parsing: first.pubky.z32), first.pubky)
        XCTAssertEqual(first.noiseStaticKey.publicKey, second.noiseStaticKey.publicKey)
        let other = NodeIdentity(seed: .generate())
        XCTAssertNotEqual(other.pubky, first.pubky)
    }

    /// RFC 8032 section 7.1 TEST 1: the seed gives the published public key, and its
    /// z-base-32 form is the one in the zbase32 vector file's derived examples.
    func testSeedDerivesRFC8032Key() throws {
        let seed = try NodeSeed(bytes: bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        let identity = NodeIdentity(seed: seed)
        XCTAssertEqual(identity.publicKey.hex, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        XCTAssertEqual(identity.pubky.z32, "47pjoycnsrfmxikm95jh13y88e8qnhzu5kungjpxyepgt7a8krpy")
        XCTAssertEqual(identity.sign([]).hex,
                       "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                       + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    }

    func testNoiseStaticKeyMatchesConvertedSecret() throws {
        let identity = NodeIdentity(seed: try NodeSeed(bytes: seedBytes))
        var computed = [UInt8](repeating: 0, count: 32)
        identity.noiseStaticKey.privateKey.withUnsafeUInt8Pointer { _ = crypto_scalarmult_curve25519_base(&computed, $0) }
        XCTAssertEqual(identity.noiseStaticKey.publicKey, computed)
        XCTAssertEqual(identity.pubky.noiseStaticKey, computed)
        XCTAssertTrue(identity.pubky.matches(noiseStaticKey: computed))
    }

    func testSignAndVerify() throws {
        let identity = NodeIdentity(seed: .generate())
        let message = Array("offer 7d1f".utf8)
        let signature = identity.sign(message)
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(identity.pubky.isValidSignature(signature, for: message))
        XCTAssertFalse(identity.pubky.isValidSignature(signature, for: message + [0]))
        var flipped = signature
        flipped[10] ^= 1
        XCTAssertFalse(identity.pubky.isValidSignature(flipped, for: message))
        XCTAssertFalse(identity.pubky.isValidSignature(Array(signature.prefix(63)), for: message))
        XCTAssertFalse(NodeIdentity(seed: .generate()).pubky.isValidSignature(signature, for: message))
    }

    /// The peernode handshake between two identities: the dialer proves the listener owns
    /// the dialled pubky; the listener learns the dialer's X25519 key and checks it against
    /// an expected pubky by converting that pubky (not the other way round).
    func testPeernodeXKHandshakeBetweenIdentities() throws {
        let dialer = NodeIdentity(seed: .generate())
        let listener = NodeIdentity(seed: .generate())
        var initiator = try HandshakeState.peernodeInitiator(identity: dialer, contact: listener.pubky)
        var responder = try HandshakeState.peernodeResponder(identity: listener)
        XCTAssertEqual(initiator.protocolName.description, "Noise_XK_25519_ChaChaPoly_BLAKE2b")

        _ = try responder.readMessage(try initiator.writeMessage())
        _ = try initiator.readMessage(try responder.writeMessage())
        let hello = Array("hello from \(dialer.pubky)".utf8)
        XCTAssertEqual(try responder.readMessage(try initiator.writeMessage(payload: hello)), hello)

        var dialerChannel = try initiator.intoTransportState()
        var listenerChannel = try responder.intoTransportState()
        XCTAssertEqual(dialerChannel.remoteStaticKey, listener.noiseStaticKey.publicKey)
        XCTAssertEqual(listenerChannel.remoteStaticKey, dialer.noiseStaticKey.publicKey)
        XCTAssertTrue(dialerChannel.remoteIdentity(is: listener.pubky))
        XCTAssertTrue(listenerChannel.remoteIdentity(is: dialer.pubky))
        XCTAssertFalse(listenerChannel.remoteIdentity(is: listener.pubky))
        XCTAssertEqual(dialerChannel.handshakeHash, listenerChannel.handshakeHash)

        XCTAssertEqual(try listenerChannel.readMessage(try dialerChannel.writeMessage([1, 2, 3])), [1, 2, 3])
        XCTAssertEqual(try dialerChannel.readMessage(try listenerChannel.writeMessage([4])), [4])
    }

    func testDialingTheWrongPubkyFails() throws {
        let dialer = NodeIdentity(seed: .generate())
        let listener = NodeIdentity(seed: .generate())
        let impostorTarget = NodeIdentity(seed: .generate())
        var initiator = try HandshakeState.peernodeInitiator(identity: dialer, contact: impostorTarget.pubky)
        var responder = try HandshakeState.peernodeResponder(identity: listener)
        XCTAssertThrowsError(try responder.readMessage(try initiator.writeMessage())) {
            XCTAssertEqual($0 as? NoiseError, .decryptionFailed)
        }
    }

    func testSecretsNeverPrinted() throws {
        let seed = try NodeSeed(bytes: seedBytes)
        let identity = NodeIdentity(seed: seed)
        var secretForms = [seedBytes.hex, "0, 1, 2, 3, 4"]
        identity.noiseStaticKey.privateKey.withUnsafeBytes { secretForms.append(Array($0).hex) }
        for value in [seed as Any, identity, identity.noiseStaticKey] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [String(describing: value), String(reflecting: value), dumped] {
                for secret in secretForms {
                    XCTAssertFalse(text.contains(secret), "secret bytes in: \(text)")
                }
            }
        }
        XCTAssertTrue(String(describing: identity).contains(identity.pubky.z32))
    }

    func testSeedLengthIsChecked() {
        XCTAssertThrowsError(try NodeSeed(bytes: [UInt8](repeating: 1, count: 31))) {
            XCTAssertEqual($0 as? IdentityError, .invalidSeedLength(31))
        }
        XCTAssertEqual(String(describing: IdentityError.invalidSeedLength(31)).contains("32 bytes"), true)
    }
}
