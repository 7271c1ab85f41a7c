/// The Noise transport phase: one CipherState per direction, made by consuming a finished
/// HandshakeState (`HandshakeState.intoTransportState()`; there is no other way to make one).
///
/// Non-copyable because a copy would share nonces with the original: sending from both
/// would reuse a nonce. Callers that must never reach nonce exhaustion (a long-lived
/// channel) watch `sendingNonce` and replace the session well before `UInt64.max`.
public struct TransportState: ~Copyable, Sendable {
    /// The Noise spec's limit for any message, tag included.
    public static let maxMessageLength = 65535
    /// The ChaCha20-Poly1305 tag each transport message carries.
    public static let tagLength = CipherState.tagLength
    /// The largest plaintext that fits in one message.
    public static let maxPayloadLength = maxMessageLength - tagLength

    public let role: HandshakeRole
    /// The final handshake hash, the same on both sides; binds the session.
    public let handshakeHash: [UInt8]
    /// The peer's X25519 static key, if the pattern gave one.
    public let remoteStaticKey: [UInt8]?
    /// In a one-way pattern only the initiator sends.
    public let isOneWay: Bool
    private var sending: CipherState
    private var receiving: CipherState

    init(role: HandshakeRole, ciphers: consuming SplitCiphers, handshakeHash: [UInt8],
         remoteStaticKey: [UInt8]?, isOneWay: Bool) {
        self.role = role
        self.handshakeHash = handshakeHash
        self.remoteStaticKey = remoteStaticKey
        self.isOneWay = isOneWay
        switch role {
        case .initiator:
            sending = ciphers.initiatorToResponder
            receiving = ciphers.responderToInitiator
        case .responder:
            sending = ciphers.responderToInitiator
            receiving = ciphers.initiatorToResponder
        }
    }

    /// Messages sent so far in this direction; the next one uses this nonce.
    public var sendingNonce: UInt64 { sending.nonce }
    /// Messages received so far.
    public var receivingNonce: UInt64 { receiving.nonce }

    /// Encrypts one message (payload + 16-byte tag).
    public mutating func writeMessage(_ payload: [UInt8]) throws(NoiseError) -> [UInt8] {
        try writeMessage(payload, prefixLength: 0) { _, _ in }
    }

    /// Encrypts one message into a buffer that starts with `prefixLength` bytes written by
    /// `prefix` (given the ciphertext's length): a transport frame's header and body in one
    /// allocation, with no copy of the ciphertext behind the header.
    public mutating func writeMessage(
        _ payload: [UInt8], prefixLength: Int, prefix: (UnsafeMutableRawBufferPointer, _ messageLength: Int) -> Void
    ) throws(NoiseError) -> [UInt8] {
        guard !isOneWay || role == .initiator else { throw .oneWayPatternDirection }
        guard payload.count <= Self.maxPayloadLength else {
            throw .messageTooLarge(size: payload.count + Self.tagLength, limit: Self.maxMessageLength)
        }
        let messageLength = payload.count + Self.tagLength
        return try CipherState.makeBytes(count: prefixLength + messageLength) { (output) throws(NoiseError) in
            prefix(UnsafeMutableRawBufferPointer(rebasing: output[..<prefixLength]), messageLength)
            try payload.withBytes { (bytes) throws(NoiseError) in
                try sending.encrypt(associatedData: UnsafeRawBufferPointer(start: nil, count: 0), plaintext: bytes,
                                    into: UnsafeMutableRawBufferPointer(rebasing: output[prefixLength...]))
            }
        }
    }

    /// Decrypts one message. Any corruption or forgery gives the single opaque
    /// `decryptionFailed`; the receiving nonce does not advance, but a caller should treat
    /// it as fatal for the session.
    public mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        try readMessage(message[...])
    }

    /// The same for a message still inside a larger buffer (a frame decoder's), read where
    /// it lies.
    public mutating func readMessage(_ message: ArraySlice<UInt8>) throws(NoiseError) -> [UInt8] {
        guard !isOneWay || role == .responder else { throw .oneWayPatternDirection }
        guard message.count <= Self.maxMessageLength else {
            throw .messageTooLarge(size: message.count, limit: Self.maxMessageLength)
        }
        return try message.withBytes { (bytes) throws(NoiseError) in
            try receiving.decrypt(associatedData: UnsafeRawBufferPointer(start: nil, count: 0), ciphertext: bytes)
        }
    }

    /// Rekey() of the outgoing cipher; the peer must rekey its incoming cipher at the same point.
    public mutating func rekeyOutgoing() { sending.rekey() }
    /// Rekey() of the incoming cipher.
    public mutating func rekeyIncoming() { receiving.rekey() }

    /// Test hook: moves both counters, so nonce exhaustion can be tested quickly.
    mutating func setNoncesForTesting(sending sendingNonce: UInt64, receiving receivingNonce: UInt64) {
        sending.setNonceForTesting(sendingNonce)
        receiving.setNonceForTesting(receivingNonce)
    }
}
