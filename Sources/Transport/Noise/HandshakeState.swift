/// The Noise HandshakeState: runs one handshake pattern as initiator or responder, on byte
/// buffers only (sending and receiving them is the caller's business).
///
/// When `isHandshakeFinished`, `intoTransportState()` consumes the handshake and returns the
/// TransportState; that is the only way to get one, so transport data cannot be sent before
/// the handshake ends. The type is non-copyable so a handshake cannot be forked and both
/// copies continued. After any error other than `wrongTurn` the handshake is dead and every
/// later call fails with `handshakeFailed`.
public struct HandshakeState: ~Copyable, Sendable {
    public let protocolName: NoiseProtocolName
    public let role: HandshakeRole
    private var symmetric: SymmetricState
    private let localStatic: DH25519.KeyPair?
    private var localEphemeral: DH25519.KeyPair?
    /// The peer's X25519 static key: given up front in patterns that pre-know it, learned
    /// from the handshake otherwise (nil until then).
    public private(set) var remoteStaticKey: [UInt8]?
    private var remoteEphemeralKey: [UInt8]?
    private let presharedKeys: [SecretBytes]
    private var presharedKeysUsed = 0
    private var messageIndex = 0
    private var failed = false
    private let fixedEphemeralKey: DH25519.KeyPair?

    /// Starts a handshake.
    /// - Parameters:
    ///   - prologue: bytes both sides must agree on; any difference makes the handshake fail.
    ///   - localStaticKey: this side's static key, when the pattern sends or pre-shares it.
    ///   - remoteStaticKey: the peer's static public key, when the pattern pre-shares it
    ///     (for XK: the responder's key, which the initiator must know in advance).
    ///   - presharedKeys: one 32-byte key per `psk` token, in the order they are used.
    public init(protocolName: NoiseProtocolName, role: HandshakeRole, prologue: [UInt8] = [],
                localStaticKey: DH25519.KeyPair? = nil, remoteStaticKey: [UInt8]? = nil,
                presharedKeys: [[UInt8]] = []) throws(NoiseError) {
        try self.init(protocolName: protocolName, role: role, prologue: prologue, localStaticKey: localStaticKey,
                      remoteStaticKey: remoteStaticKey, presharedKeys: presharedKeys,
                      fixedEphemeralKeyForVectorTestsOnly: nil)
    }

    /// The test-vector hook: `fixedEphemeralKeyForVectorTestsOnly` replaces the random
    /// ephemeral key so published transcripts can be reproduced. A fixed ephemeral key in
    /// real use would destroy forward secrecy, so this initialiser is internal and reachable
    /// only from tests through `@testable import`.
    init(protocolName: NoiseProtocolName, role: HandshakeRole, prologue: [UInt8],
         localStaticKey: DH25519.KeyPair?, remoteStaticKey: [UInt8]?, presharedKeys: [[UInt8]],
         fixedEphemeralKeyForVectorTestsOnly: DH25519.KeyPair?) throws(NoiseError) {
        let pattern = protocolName.pattern
        let (localPre, remotePre) = role == .initiator
            ? (pattern.initiatorPreMessage, pattern.responderPreMessage)
            : (pattern.responderPreMessage, pattern.initiatorPreMessage)
        // Pre-messages of the patterns we support hold only static keys.
        guard (localPre + remotePre).allSatisfy({ $0 == .s }) else { throw .unsupportedPattern(pattern.name) }

        let localSends = pattern.messages.indices
            .filter { ($0 % 2 == 0) == (role == .initiator) }
            .flatMap { pattern.messages[$0] }
        let needsLocalStatic = localPre.contains(.s) || localSends.contains(.s)
        switch (needsLocalStatic, localStaticKey) {
        case (true, nil): throw .missingKey(which: "local static key")
        case (false, .some): throw .unexpectedKey(which: "local static key")
        default: break
        }
        switch (remotePre.contains(.s), remoteStaticKey) {
        case (true, nil): throw .missingKey(which: "remote static key")
        case (false, .some): throw .unexpectedKey(which: "remote static key")
        case (true, .some(let key)) where key.count != DH25519.keyLength:
            throw .invalidKeyLength(which: "remote static key", expected: DH25519.keyLength, actual: key.count)
        default: break
        }
        guard presharedKeys.count == pattern.pskCount else {
            throw .wrongPresharedKeyCount(expected: pattern.pskCount, actual: presharedKeys.count)
        }
        for key in presharedKeys where key.count != 32 {
            throw .invalidKeyLength(which: "pre-shared key", expected: 32, actual: key.count)
        }

        self.protocolName = protocolName
        self.role = role
        self.localStatic = localStaticKey
        self.remoteStaticKey = remoteStaticKey
        self.presharedKeys = presharedKeys.map { SecretBytes(copying: $0) }
        self.fixedEphemeralKey = fixedEphemeralKeyForVectorTestsOnly

        // Initialize(): protocol name, prologue, then the pre-message keys, initiator's first.
        symmetric = SymmetricState(protocolName: protocolName.description, hashFunction: protocolName.hashFunction)
        prologue.withUnsafeBytes { symmetric.mixHash($0) }
        let initiatorPreKey = role == .initiator ? localStaticKey?.publicKey : remoteStaticKey
        let responderPreKey = role == .initiator ? remoteStaticKey : localStaticKey?.publicKey
        if pattern.initiatorPreMessage.contains(.s), let key = initiatorPreKey {
            key.withUnsafeBytes { symmetric.mixHash($0) }
        }
        if pattern.responderPreMessage.contains(.s), let key = responderPreKey {
            key.withUnsafeBytes { symmetric.mixHash($0) }
        }
    }

    /// True once every message of the pattern has been written or read.
    public var isHandshakeFinished: Bool { messageIndex == protocolName.pattern.messages.count }

    /// True when the next call should be `writeMessage`, false when it should be `readMessage`.
    public var isMyTurn: Bool {
        !isHandshakeFinished && (messageIndex % 2 == 0) == (role == .initiator)
    }

    /// h, the handshake hash so far; after the last message it identifies the session
    /// (usable for channel binding).
    public var handshakeHash: [UInt8] { symmetric.handshakeHash }

    /// WriteMessage(payload): the next handshake message, carrying `payload` (encrypted
    /// once a key has been established).
    public mutating func writeMessage(payload: [UInt8] = []) throws(NoiseError) -> [UInt8] {
        try checkTurn(writing: true)
        guard payload.count <= TransportState.maxMessageLength else {
            throw .messageTooLarge(size: payload.count, limit: TransportState.maxMessageLength)
        }
        do throws(NoiseError) {
            var message: [UInt8] = []
            for token in protocolName.pattern.messages[messageIndex] {
                switch token {
                case .e:
                    let ephemeral = fixedEphemeralKey ?? DH25519.KeyPair.generate()
                    localEphemeral = ephemeral
                    message += ephemeral.publicKey
                    mixEphemeral(ephemeral.publicKey)
                case .s:
                    guard let localStatic else { throw .missingKey(which: "local static key") }
                    message += try localStatic.publicKey.withBytes { (key) throws(NoiseError) in
                        try symmetric.encryptAndHash(key)
                    }
                case .ee, .es, .se, .ss:
                    try mixDiffieHellman(token)
                case .psk:
                    mixNextPresharedKey()
                }
            }
            message += try payload.withBytes { (bytes) throws(NoiseError) in try symmetric.encryptAndHash(bytes) }
            // Only now is the length known; the state has moved on, so an oversized
            // message ends the handshake rather than leaving it half-written.
            guard message.count <= TransportState.maxMessageLength else {
                throw .messageTooLarge(size: message.count, limit: TransportState.maxMessageLength)
            }
            messageIndex += 1
            return message
        } catch {
            failed = true
            throw error
        }
    }

    /// ReadMessage(message): processes the peer's next handshake message and returns its payload.
    public mutating func readMessage(_ message: [UInt8]) throws(NoiseError) -> [UInt8] {
        try checkTurn(writing: false)
        guard message.count <= TransportState.maxMessageLength else {
            throw .messageTooLarge(size: message.count, limit: TransportState.maxMessageLength)
        }
        do throws(NoiseError) {
            var offset = 0
            func take(_ count: Int) throws(NoiseError) -> ArraySlice<UInt8> {
                guard message.count - offset >= count else { throw .messageTooShort }
                defer { offset += count }
                return message[offset..<offset + count]
            }
            for token in protocolName.pattern.messages[messageIndex] {
                switch token {
                case .e:
                    let key = Array(try take(DH25519.keyLength))
                    remoteEphemeralKey = key
                    mixEphemeral(key)
                case .s:
                    let length = DH25519.keyLength + (symmetric.hasKey ? CipherState.tagLength : 0)
                    let field = try take(length)
                    remoteStaticKey = try field.withBytes { (bytes) throws(NoiseError) in
                        try symmetric.decryptAndHash(bytes)
                    }
                case .ee, .es, .se, .ss:
                    try mixDiffieHellman(token)
                case .psk:
                    mixNextPresharedKey()
                }
            }
            let payload = try message[offset...].withBytes { (bytes) throws(NoiseError) in
                try symmetric.decryptAndHash(bytes)
            }
            messageIndex += 1
            return payload
        } catch {
            failed = true
            throw error
        }
    }

    /// Consumes the finished handshake into the transport state (Split()). If the handshake
    /// is not finished the error says so and the handshake is gone: it is consumed either way.
    public consuming func intoTransportState() throws(NoiseError) -> TransportState {
        guard !failed else { throw .handshakeFailed }
        guard isHandshakeFinished else { throw .handshakeNotFinished }
        let hash = symmetric.handshakeHash
        return TransportState(role: role, ciphers: symmetric.split(), handshakeHash: hash,
                              remoteStaticKey: remoteStaticKey, isOneWay: protocolName.pattern.isOneWay)
    }

    private func checkTurn(writing: Bool) throws(NoiseError) {
        guard !failed else { throw .handshakeFailed }
        guard !isHandshakeFinished else { throw .handshakeAlreadyFinished }
        guard isMyTurn == writing else { throw .wrongTurn }
    }

    /// The `e` token's hashing: MixHash(e), plus MixKey(e) in PSK mode so that every
    /// encryption after a PSK also depends on a fresh ephemeral.
    private mutating func mixEphemeral(_ publicKey: [UInt8]) {
        publicKey.withUnsafeBytes { symmetric.mixHash($0) }
        if protocolName.pattern.isPSKMode {
            publicKey.withUnsafeBytes { symmetric.mixKey($0) }
        }
    }

    /// `ee`, `es`, `se`, `ss`: the first letter names the initiator's key, the second the
    /// responder's, so which of them is ours depends on the role.
    private mutating func mixDiffieHellman(_ token: HandshakePattern.Token) throws(NoiseError) {
        let initiatorUsesEphemeral = token == .ee || token == .es
        let responderUsesEphemeral = token == .ee || token == .se
        let localUsesEphemeral = role == .initiator ? initiatorUsesEphemeral : responderUsesEphemeral
        let remoteUsesEphemeral = role == .initiator ? responderUsesEphemeral : initiatorUsesEphemeral
        guard let local = localUsesEphemeral ? localEphemeral : localStatic else {
            throw .missingKey(which: localUsesEphemeral ? "local ephemeral key" : "local static key")
        }
        guard let remote = remoteUsesEphemeral ? remoteEphemeralKey : remoteStaticKey else {
            throw .missingKey(which: remoteUsesEphemeral ? "remote ephemeral key" : "remote static key")
        }
        let shared = try DH25519.agree(local, remote)
        shared.withUnsafeBytes { symmetric.mixKey($0) }
    }

    private mutating func mixNextPresharedKey() {
        // The count was checked against the pattern's psk tokens in init.
        let key = presharedKeys[presharedKeysUsed]
        presharedKeysUsed += 1
        key.withUnsafeBytes { symmetric.mixKeyAndHash($0) }
    }
}
