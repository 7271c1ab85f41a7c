import Bitcoin
import XCTest
@testable import Transport

/// Small named tests of the failure behaviour the vectors do not exercise.
///
/// Sending transport data before the handshake ends is impossible at compile time:
/// `HandshakeState` has no transport API, and the only way to a `TransportState` is the
/// consuming `intoTransportState()`. The runtime tests below cover what can still be tried.
final class NoiseBehaviourTests: XCTestCase {
    private let xx = try! NoiseProtocolName("Noise_XX_25519_ChaChaPoly_BLAKE2b")

    /// Both ends of one session (a tuple cannot hold non-copyable values).
    private struct Session: ~Copyable {
        var initiator: TransportState
        var responder: TransportState
    }

    /// Runs a complete peernode-style XK handshake between fresh keys.
    private func handshake() throws -> Session {
        let responderStatic = DH25519.KeyPair.generate()
        var initiator = try HandshakeState(protocolName: .peernode, role: .initiator,
                                           prologue: NoiseProtocolName.peernodePrologue,
                                           localStaticKey: .generate(), remoteStaticKey: responderStatic.publicKey)
        var responder = try HandshakeState(protocolName: .peernode, role: .responder,
                                           prologue: NoiseProtocolName.peernodePrologue,
                                           localStaticKey: responderStatic)
        _ = try responder.readMessage(try initiator.writeMessage())
        _ = try initiator.readMessage(try responder.writeMessage())
        _ = try responder.readMessage(try initiator.writeMessage())
        return Session(initiator: try initiator.intoTransportState(), responder: try responder.intoTransportState())
    }

    func testFlippedCiphertextByteFailsWithOpaqueError() throws {
        var session = try handshake()
        let message = try session.initiator.writeMessage(Array("pay 1000 sat".utf8))
        // First byte, a middle byte, and a tag byte: one error for all, naming nothing.
        for position in [0, message.count / 2, message.count - 1] {
            var corrupted = message
            corrupted[position] ^= 0x01
            XCTAssertThrowsError(try session.responder.readMessage(corrupted)) { error in
                XCTAssertEqual(error as? NoiseError, .decryptionFailed)
                XCTAssertFalse(String(describing: error).contains(corrupted.hex.prefix(8)))
                XCTAssertEqual(String(describing: error), "Noise message failed authentication")
            }
        }
        XCTAssertEqual(session.responder.receivingNonce, 0, "a failed decryption must not use up the nonce")
        XCTAssertEqual(try session.responder.readMessage(message), Array("pay 1000 sat".utf8))
    }

    func testFlippedHandshakeByteFailsAndKillsTheHandshake() throws {
        let responderStatic = DH25519.KeyPair.generate()
        var initiator = try HandshakeState(protocolName: .peernode, role: .initiator, localStaticKey: .generate(),
                                           remoteStaticKey: responderStatic.publicKey)
        var responder = try HandshakeState(protocolName: .peernode, role: .responder, localStaticKey: responderStatic)
        _ = try responder.readMessage(try initiator.writeMessage())
        var second = try responder.writeMessage()
        second[second.count - 1] ^= 0x80
        XCTAssertThrowsError(try initiator.readMessage(second)) { XCTAssertEqual($0 as? NoiseError, .decryptionFailed) }
        XCTAssertThrowsError(try initiator.writeMessage()) { XCTAssertEqual($0 as? NoiseError, .handshakeFailed) }
        do {
            _ = try initiator.intoTransportState()
            XCTFail("a failed handshake must not yield a transport state")
        } catch {
            XCTAssertEqual(error as NoiseError, .handshakeFailed)
        }
    }

    func testWrongTurnIsRefused() throws {
        var initiator = try HandshakeState(protocolName: xx, role: .initiator, localStaticKey: .generate())
        var responder = try HandshakeState(protocolName: xx, role: .responder, localStaticKey: .generate())
        XCTAssertTrue(initiator.isMyTurn)
        XCTAssertFalse(responder.isMyTurn)
        XCTAssertThrowsError(try responder.writeMessage()) { XCTAssertEqual($0 as? NoiseError, .wrongTurn) }
        XCTAssertThrowsError(try initiator.readMessage([UInt8](repeating: 0, count: 32))) {
            XCTAssertEqual($0 as? NoiseError, .wrongTurn)
        }
        // A wrong turn changes nothing: the handshake still completes.
        let first = try initiator.writeMessage()
        XCTAssertThrowsError(try initiator.writeMessage()) { XCTAssertEqual($0 as? NoiseError, .wrongTurn) }
        _ = try responder.readMessage(first)
        _ = try initiator.readMessage(try responder.writeMessage())
        _ = try responder.readMessage(try initiator.writeMessage())
        XCTAssertThrowsError(try initiator.writeMessage()) { XCTAssertEqual($0 as? NoiseError, .handshakeAlreadyFinished) }
        XCTAssertThrowsError(try responder.readMessage([])) { XCTAssertEqual($0 as? NoiseError, .handshakeAlreadyFinished) }
        let initiatorTransport = try initiator.intoTransportState()
        let responderTransport = try responder.intoTransportState()
        XCTAssertEqual(initiatorTransport.handshakeHash, responderTransport.handshakeHash)
    }

    func testTransportBeforeHandshakeEndsIsRefused() throws {
        var initiator = try HandshakeState(protocolName: xx, role: .initiator, localStaticKey: .generate())
        _ = try initiator.writeMessage()
        XCTAssertFalse(initiator.isHandshakeFinished)
        do {
            _ = try initiator.intoTransportState()
            XCTFail("an unfinished handshake must not yield a transport state")
        } catch {
            XCTAssertEqual(error as NoiseError, .handshakeNotFinished)
        }
    }

    func testNonceExhaustionRefuses() throws {
        var session = try handshake()
        session.initiator.setNoncesForTesting(sending: UInt64.max - 2, receiving: 0)
        session.responder.setNoncesForTesting(sending: 0, receiving: UInt64.max - 2)
        // Nonces 2^64-3 and 2^64-2 are usable; 2^64-1 is reserved and never sent with.
        let first = try session.initiator.writeMessage([1])
        let second = try session.initiator.writeMessage([2])
        XCTAssertEqual(session.initiator.sendingNonce, UInt64.max)
        XCTAssertThrowsError(try session.initiator.writeMessage([3])) { XCTAssertEqual($0 as? NoiseError, .nonceExhausted) }
        XCTAssertThrowsError(try session.initiator.writeMessage([3])) { XCTAssertEqual($0 as? NoiseError, .nonceExhausted) }
        XCTAssertEqual(try session.responder.readMessage(first), [1])
        XCTAssertEqual(try session.responder.readMessage(second), [2])
        XCTAssertThrowsError(try session.responder.readMessage(second)) { XCTAssertEqual($0 as? NoiseError, .nonceExhausted) }
    }

    func testCipherStateRefusesReservedNonce() throws {
        var cipher = CipherState(key: SecretBytes(copying: [UInt8](repeating: 7, count: 32)))
        cipher.setNonceForTesting(UInt64.max)
        XCTAssertThrowsError(try [UInt8]().withBytes { (empty) throws(NoiseError) in
            try cipher.encrypt(associatedData: empty, plaintext: empty)
        }) { XCTAssertEqual($0 as? NoiseError, .nonceExhausted) }
    }

    func testOversizeMessageRejected() throws {
        var session = try handshake()
        let largest = [UInt8](repeating: 0xab, count: TransportState.maxPayloadLength)
        let message = try session.initiator.writeMessage(largest)
        XCTAssertEqual(message.count, 65535)
        XCTAssertEqual(try session.responder.readMessage(message), largest)
        XCTAssertThrowsError(try session.initiator.writeMessage(largest + [0])) {
            XCTAssertEqual($0 as? NoiseError, .messageTooLarge(size: 65536, limit: 65535))
        }
        XCTAssertThrowsError(try session.responder.readMessage(message + [0])) {
            XCTAssertEqual($0 as? NoiseError, .messageTooLarge(size: 65536, limit: 65535))
        }
        // Refusals use no nonce: the stream continues.
        XCTAssertEqual(session.initiator.sendingNonce, 1)
        XCTAssertEqual(try session.responder.readMessage(try session.initiator.writeMessage([9])), [9])
    }

    func testOversizeHandshakeMessageRejected() throws {
        let nn = try NoiseProtocolName("Noise_NN_25519_ChaChaPoly_SHA256")
        var initiator = try HandshakeState(protocolName: nn, role: .initiator)
        // NN's first message is e (32 bytes) + the unencrypted payload.
        XCTAssertThrowsError(try initiator.writeMessage(payload: [UInt8](repeating: 0, count: 65535 - 31))) {
            XCTAssertEqual($0 as? NoiseError, .messageTooLarge(size: 65536, limit: 65535))
        }
        var responder = try HandshakeState(protocolName: nn, role: .responder)
        XCTAssertThrowsError(try responder.readMessage([UInt8](repeating: 0, count: 65536))) {
            XCTAssertEqual($0 as? NoiseError, .messageTooLarge(size: 65536, limit: 65535))
        }
        XCTAssertThrowsError(try responder.readMessage([UInt8](repeating: 0, count: 31))) {
            XCTAssertEqual($0 as? NoiseError, .messageTooShort)
        }
    }

    func testXKWithWrongExpectedResponderKeyFailsAtResponder() throws {
        let responderStatic = DH25519.KeyPair.generate()
        let someoneElse = DH25519.KeyPair.generate()
        var initiator = try HandshakeState(protocolName: .peernode, role: .initiator,
                                           prologue: NoiseProtocolName.peernodePrologue,
                                           localStaticKey: .generate(), remoteStaticKey: someoneElse.publicKey)
        var responder = try HandshakeState(protocolName: .peernode, role: .responder,
                                           prologue: NoiseProtocolName.peernodePrologue, localStaticKey: responderStatic)
        // es uses the key the initiator expected, so the responder cannot authenticate message 1.
        let first = try initiator.writeMessage()
        XCTAssertThrowsError(try responder.readMessage(first)) { XCTAssertEqual($0 as? NoiseError, .decryptionFailed) }
    }

    func testDifferentProloguesFail() throws {
        let responderStatic = DH25519.KeyPair.generate()
        var initiator = try HandshakeState(protocolName: .peernode, role: .initiator, prologue: Array("peernode/1".utf8),
                                           localStaticKey: .generate(), remoteStaticKey: responderStatic.publicKey)
        var responder = try HandshakeState(protocolName: .peernode, role: .responder, prologue: Array("peernode/2".utf8),
                                           localStaticKey: responderStatic)
        XCTAssertThrowsError(try responder.readMessage(try initiator.writeMessage())) {
            XCTAssertEqual($0 as? NoiseError, .decryptionFailed)
        }
    }

    func testLowOrderEphemeralIsRejected() throws {
        let nn = try NoiseProtocolName("Noise_NN_25519_ChaChaPoly_BLAKE2b")
        var responder = try HandshakeState(protocolName: nn, role: .responder)
        // An all-zero "ephemeral" would make ee all zeros, a secret everyone knows.
        _ = try responder.readMessage([UInt8](repeating: 0, count: 32))
        XCTAssertThrowsError(try responder.writeMessage()) { XCTAssertEqual($0 as? NoiseError, .invalidRemotePublicKey) }
    }

    func testOneWayPatternOnlyInitiatorSends() throws {
        let n = try NoiseProtocolName("Noise_N_25519_ChaChaPoly_BLAKE2b")
        let responderStatic = DH25519.KeyPair.generate()
        var initiator = try HandshakeState(protocolName: n, role: .initiator, remoteStaticKey: responderStatic.publicKey)
        var responder = try HandshakeState(protocolName: n, role: .responder, localStaticKey: responderStatic)
        XCTAssertEqual(try responder.readMessage(try initiator.writeMessage(payload: [1, 2])), [1, 2])
        var sender = try initiator.intoTransportState()
        var receiver = try responder.intoTransportState()
        XCTAssertEqual(try receiver.readMessage(try sender.writeMessage([3])), [3])
        XCTAssertThrowsError(try receiver.writeMessage([4])) { XCTAssertEqual($0 as? NoiseError, .oneWayPatternDirection) }
        XCTAssertThrowsError(try sender.readMessage([UInt8](repeating: 0, count: 16))) {
            XCTAssertEqual($0 as? NoiseError, .oneWayPatternDirection)
        }
    }

    func testRekeyMustHappenOnBothSides() throws {
        var session = try handshake()
        session.initiator.rekeyOutgoing()
        session.responder.rekeyIncoming()
        XCTAssertEqual(try session.responder.readMessage(try session.initiator.writeMessage([1])), [1])
        session.initiator.rekeyOutgoing()
        XCTAssertThrowsError(try session.responder.readMessage(try session.initiator.writeMessage([2]))) {
            XCTAssertEqual($0 as? NoiseError, .decryptionFailed)
        }
    }

    func testMissingAndUnexpectedKeysAreNamed() throws {
        XCTAssertEqual(initError(try HandshakeState(protocolName: .peernode, role: .initiator, localStaticKey: .generate())),
                       .missingKey(which: "remote static key"))
        XCTAssertEqual(initError(try HandshakeState(protocolName: .peernode, role: .responder)),
                       .missingKey(which: "local static key"))
        XCTAssertEqual(initError(try HandshakeState(protocolName: .peernode, role: .responder, localStaticKey: .generate(),
                                                    remoteStaticKey: [UInt8](repeating: 9, count: 32))),
                       .unexpectedKey(which: "remote static key"))
        XCTAssertEqual(initError(try HandshakeState(protocolName: .peernode, role: .initiator, localStaticKey: .generate(),
                                                    remoteStaticKey: [UInt8](repeating: 9, count: 31))),
                       .invalidKeyLength(which: "remote static key", expected: 32, actual: 31))
        let psk = try NoiseProtocolName("Noise_NNpsk0+psk2_25519_ChaChaPoly_SHA256")
        XCTAssertEqual(initError(try HandshakeState(protocolName: psk, role: .initiator,
                                                    presharedKeys: [[UInt8](repeating: 1, count: 32)])),
                       .wrongPresharedKeyCount(expected: 2, actual: 1))
    }

    /// The error a handshake initialiser throws (XCTAssertThrowsError needs a copyable result).
    private func initError(_ make: @autoclosure () throws(NoiseError) -> HandshakeState) -> NoiseError? {
        do {
            _ = try make()
            return nil
        } catch {
            return error
        }
    }

    func testPatternNamesAndModifiers() throws {
        let xxpsk = try HandshakePattern(name: "XXpsk0+psk1")
        XCTAssertEqual(xxpsk.messages.map { $0.map(\.rawValue) }, [["psk", "e", "psk"], ["e", "ee", "s", "es"], ["s", "se"]])
        XCTAssertEqual(xxpsk.pskCount, 2)
        let xk1 = try HandshakePattern(name: "XK1")
        XCTAssertEqual(xk1.responderPreMessage, [.s])
        XCTAssertEqual(xk1.messages.map { $0.map(\.rawValue) }, [["e"], ["e", "ee", "es"], ["s", "se"]])
        XCTAssertTrue(try HandshakePattern(name: "Kpsk0").isOneWay)
        for bad in ["XY", "XXpsk4", "XXpsk0+psk0", "XXpsk", "XXpsk01", "XXfallback", "XXpsk0+", "xx", ""] {
            XCTAssertThrowsError(try HandshakePattern(name: bad), bad) {
                XCTAssertEqual($0 as? NoiseError, .unsupportedPattern(bad))
            }
        }
        for bad in ["Noise_XX_448_ChaChaPoly_BLAKE2b", "Noise_XX_25519_AESGCM_SHA256", "Noise_XX_25519_ChaChaPoly_SHA512",
                    "Noise_XX_25519_ChaChaPoly", "NoisePSK_XX_25519_ChaChaPoly_SHA256"] {
            XCTAssertThrowsError(try NoiseProtocolName(bad), bad)
        }
        XCTAssertEqual(NoiseProtocolName.peernode.description, "Noise_XK_25519_ChaChaPoly_BLAKE2b")
    }

    /// HMAC-SHA256 per RFC 4231 (cases 2 and 6), through the generic HMAC; case 6's key is
    /// longer than the block and takes the hashed-key path the Noise vectors never reach.
    func testGenericHMACMatchesRFC4231() {
        let hash = NoiseHashFunction.sha256
        func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
            key.withUnsafeBytes { k in data.withUnsafeBytes { hash.hmac(key: k, [$0]) } }
        }
        XCTAssertEqual(hmac(Array("Jefe".utf8), Array("what do ya want for nothing?".utf8)).hex,
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(hmac([UInt8](repeating: 0xaa, count: 131),
                            Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)).hex,
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    func testKeyPairDescriptionHidesPrivateKey() throws {
        let secret = [UInt8](repeating: 0x5a, count: 32)
        let pair = try DH25519.KeyPair(privateKey: secret)
        for text in [String(describing: pair), String(reflecting: pair), dumped(pair)] {
            XCTAssertFalse(text.contains(secret.hex), text)
            XCTAssertFalse(text.contains("90, 90, 90"), text)
        }
        XCTAssertTrue(String(describing: pair).contains(pair.publicKey.hex))
    }

    private func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
