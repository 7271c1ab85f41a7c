/// Everything that can go wrong in the Noise layer.
///
/// Messages say what to do about the failure. None of them carries key material or bytes
/// a peer sent: a failed decryption in particular is one opaque case, so an attacker
/// learns nothing from which check failed.
public enum NoiseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The protocol name is not of the form `Noise_<pattern>_25519_ChaChaPoly_<hash>`, or
    /// names a primitive this implementation does not provide.
    case unsupportedProtocol(String)
    /// The handshake pattern (with its modifiers) is not one of the Noise spec's patterns.
    case unsupportedPattern(String)
    /// A key the pattern needs was not supplied; `which` names it ("local static key", ...).
    case missingKey(which: String)
    /// A key was supplied that the pattern does not use, which usually means the wrong
    /// pattern or role was chosen.
    case unexpectedKey(which: String)
    /// A key had the wrong length (X25519 keys and PSKs are 32 bytes).
    case invalidKeyLength(which: String, expected: Int, actual: Int)
    /// The number of pre-shared keys differs from the number of `psk` tokens.
    case wrongPresharedKeyCount(expected: Int, actual: Int)
    /// `writeMessage` was called while waiting for the peer, or `readMessage` while it is
    /// our turn to send.
    case wrongTurn
    /// The handshake already ended: turn it into a `TransportState` instead.
    case handshakeAlreadyFinished
    /// Transport mode was requested before the last handshake message.
    case handshakeNotFinished
    /// An earlier error left this handshake in an unknown state; start a new one.
    case handshakeFailed
    /// A handshake message ended before all of its tokens were read.
    case messageTooShort
    /// A Noise message may be at most 65535 bytes, ciphertext and tag included.
    case messageTooLarge(size: Int, limit: Int)
    /// Authentication failed: the message was corrupted, forged, or the keys disagree.
    case decryptionFailed
    /// A Diffie-Hellman result was all zeros: the peer sent a low-order public key.
    case invalidRemotePublicKey
    /// The cipher's 64-bit nonce is used up; the session must be replaced, never reused.
    case nonceExhausted
    /// In a one-way pattern only the initiator sends transport messages.
    case oneWayPatternDirection

    public var description: String {
        switch self {
        case .unsupportedProtocol(let name):
            return "unsupported Noise protocol \"\(name)\": expected Noise_<pattern>_25519_ChaChaPoly_BLAKE2b or _SHA256"
        case .unsupportedPattern(let name):
            return "unsupported Noise handshake pattern \"\(name)\""
        case .missingKey(let which):
            return "the handshake pattern needs a \(which), and none was given"
        case .unexpectedKey(let which):
            return "a \(which) was given but the handshake pattern does not use one; check the pattern and role"
        case .invalidKeyLength(let which, let expected, let actual):
            return "\(which) must be \(expected) bytes, got \(actual)"
        case .wrongPresharedKeyCount(let expected, let actual):
            return "the handshake pattern uses \(expected) pre-shared key(s), \(actual) given"
        case .wrongTurn:
            return "Noise handshake message out of turn: the other side is due to send"
        case .handshakeAlreadyFinished:
            return "the Noise handshake has finished; use the transport state for further messages"
        case .handshakeNotFinished:
            return "the Noise handshake has not finished; transport messages are not possible yet"
        case .handshakeFailed:
            return "the Noise handshake failed earlier and cannot continue; start a new handshake"
        case .messageTooShort:
            return "Noise handshake message is truncated"
        case .messageTooLarge(let size, let limit):
            return "Noise message of \(size) bytes exceeds the \(limit)-byte limit; split the payload"
        case .decryptionFailed:
            return "Noise message failed authentication"
        case .invalidRemotePublicKey:
            return "the peer's public key is invalid (low-order point)"
        case .nonceExhausted:
            return "the Noise cipher has used all its nonces; close the session and open a new one"
        case .oneWayPatternDirection:
            return "one-way Noise pattern: only the initiator sends, only the responder receives"
        }
    }
}
