/// peernode/1's handshake as a pure state machine: bytes in, bytes to send and an outcome
/// out. `SecureChannel.connect`/`accept` do the I/O and the timeout around it.
///
/// Noise_XK, three messages, each framed like transport frames (2-byte length prefix):
///
///     -> e, es                 (empty payload)
///     <- e, ee                 (empty payload)
///     -> s, se                 payload: the initiator's 32-byte ed25519 key (its pubky)
///
/// XK lets the responder learn only the initiator's X25519 key, from which a pubky cannot
/// be computed, so the initiator sends its pubky in message 3, encrypted and after the
/// responder has proven its identity; the responder accepts it only if its X25519 form is
/// the key the handshake authenticated.
///
/// A dialler that has the wrong pubky for an address fails in the responder, at message 1
/// (its payload does not decrypt). The responder then answers with one 32-byte frame, its
/// own ed25519 public key, and closes, so the dialler can say which node it reached. That
/// frame is unauthenticated and only ever used in an error message; it reveals nothing a
/// published contact (pubky + host:port) does not. Message 2 is always 48 bytes, so the two
/// cannot be confused.
///
/// A listener whose connection budgets are full (see `ConnectionBudget`) answers with one
/// 16-byte frame, `busyMessage`, before any handshake byte, and closes, so the dialler can
/// say "full, try later" instead of "not the node dialled". It too is unauthenticated and
/// only ever used in an error message; at 16 bytes it is neither message 2 nor a pubky.
struct ChannelHandshake: ~Copyable {
    enum Role: Sendable, Equatable {
        case initiator(expecting: Pubky)
        case responder
    }

    enum Outcome: Sendable, Equatable {
        case needMoreBytes
        case finished
        case failed(ChannelError)
    }

    /// What to do after a `receive`: write `send` (possibly empty), then act on `outcome`.
    struct Step: Sendable, Equatable {
        var send: [UInt8] = []
        var outcome: Outcome = .needMoreBytes
    }

    /// Message 3, the longest: encrypted static key (32 + 16) and encrypted pubky (32 + 16).
    static let maxFrameLength = 96
    /// What a full listener sends instead of message 2 (exactly 16 bytes).
    static let busyMessage = Array("peernode/1 busy.".utf8)
    /// `-> e, es` with an empty payload: ephemeral key plus a tag.
    static let firstMessageLength = 32 + TransportState.tagLength

    let role: Role
    private let identity: NodeIdentity
    private let limits: ChannelLimits
    private var noise: HandshakeState
    private var decoder = FrameDecoder(maximumLength: ChannelHandshake.maxFrameLength)
    private var messagesDone = 0
    private var failure: ChannelError?
    private(set) var remotePubky: Pubky?

    init(initiator identity: NodeIdentity, expecting contact: Pubky, limits: ChannelLimits) throws(ChannelError) {
        do {
            noise = try .peernodeInitiator(identity: identity, contact: contact)
        } catch {
            throw .handshakeFailed(error)
        }
        self.identity = identity
        self.limits = limits
        role = .initiator(expecting: contact)
    }

    init(responder identity: NodeIdentity, limits: ChannelLimits) throws(ChannelError) {
        do {
            noise = try .peernodeResponder(identity: identity)
        } catch {
            throw .handshakeFailed(error)
        }
        self.identity = identity
        self.limits = limits
        role = .responder
    }

    var isFinished: Bool { failure == nil && messagesDone == 3 }

    /// What to send before reading anything: message 1 for the initiator, nothing for the
    /// responder.
    mutating func start() -> Step {
        guard case .initiator = role, messagesDone == 0 else { return Step() }
        do {
            let message = try noise.writeMessage(payload: [])
            messagesDone = 1
            return Step(send: Frame.encode(message))
        } catch {
            return fail(.handshakeFailed(error))
        }
    }

    /// Feeds bytes from the peer. Bytes past the last handshake message stay buffered and
    /// move into the session (the initiator may send its first frame right after message 3).
    mutating func receive(_ bytes: [UInt8]) -> Step {
        if let failure { return Step(outcome: .failed(failure)) }
        decoder.feed(bytes)
        var step = Step()
        while !isFinished {
            let frame: [UInt8]
            do {
                guard let next = try decoder.nextFrame() else { return step }
                frame = next
            } catch {
                step.outcome = fail(error).outcome
                return step
            }
            let result: Step
            switch role {
            case .initiator(let expected): result = initiatorReads(frame, expected: expected)
            case .responder: result = responderReads(frame)
            }
            step.send += result.send
            step.outcome = result.outcome
            if case .failed = result.outcome { return step }
        }
        return step
    }

    /// The transport phase. Only a finished handshake has one.
    consuming func finish() throws(ChannelError) -> ChannelSession {
        guard isFinished, let remotePubky else { throw failure ?? .closedDuringHandshake }
        var decoder = self.decoder
        decoder.maximumLength = limits.maxFrameLength
        let transport: TransportState
        do {
            transport = try noise.intoTransportState()
        } catch {
            throw .handshakeFailed(error)
        }
        return ChannelSession(transport: transport, decoder: decoder, remotePubky: remotePubky, limits: limits)
    }

    /// The typed reason to report when the peer closes before the handshake ends.
    var closedEarlyError: ChannelError {
        if let failure { return failure }
        if decoder.bufferedByteCount > 0 { return .truncatedFrame }
        return .closedDuringHandshake
    }

    private mutating func initiatorReads(_ frame: [UInt8], expected: Pubky) -> Step {
        // Only message 2 ever comes to the initiator.
        if frame.count == Pubky.publicKeyLength {
            return fail(.wrongRemotePubky(expected: expected, reached: try? Pubky(publicKey: frame)))
        }
        if frame == Self.busyMessage { return fail(.listenerBusy) }
        do {
            let payload = try noise.readMessage(frame)
            guard payload.isEmpty else { return fail(.unexpectedHandshakePayload) }
            let third = try noise.writeMessage(payload: identity.publicKey)
            messagesDone = 3
            remotePubky = expected
            return Step(send: Frame.encode(third), outcome: .finished)
        } catch {
            return fail(.handshakeFailed(error))
        }
    }

    private mutating func responderReads(_ frame: [UInt8]) -> Step {
        if messagesDone == 0 {
            let payload: [UInt8]
            do {
                payload = try noise.readMessage(frame)
            } catch .decryptionFailed where frame.count == Self.firstMessageLength {
                // A well-formed message 1 for another key: say who we are, then close.
                var step = fail(.notForThisNode)
                step.send = Frame.encode(identity.publicKey)
                return step
            } catch {
                return fail(.handshakeFailed(error))
            }
            guard payload.isEmpty else { return fail(.unexpectedHandshakePayload) }
            do {
                let second = try noise.writeMessage(payload: [])
                messagesDone = 2
                return Step(send: Frame.encode(second))
            } catch {
                return fail(.handshakeFailed(error))
            }
        }
        let payload: [UInt8]
        do {
            payload = try noise.readMessage(frame)
        } catch {
            return fail(.handshakeFailed(error))
        }
        guard payload.count == Pubky.publicKeyLength, let claimed = try? Pubky(publicKey: payload),
              let staticKey = noise.remoteStaticKey else {
            return fail(.invalidInitiatorIdentity)
        }
        guard claimed.matches(noiseStaticKey: staticKey) else { return fail(.initiatorKeyMismatch(claimed: claimed)) }
        messagesDone = 3
        remotePubky = claimed
        return Step(outcome: .finished)
    }

    private mutating func fail(_ error: ChannelError) -> Step {
        failure = error
        return Step(outcome: .failed(error))
    }
}
