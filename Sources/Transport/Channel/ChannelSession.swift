/// The transport phase of one channel as a pure state machine: messages in, frames out, and
/// the reverse. `SecureChannel` moves the bytes.
///
/// Non-copyable like the `TransportState` it owns: a copy could send with the same nonces.
struct ChannelSession: ~Copyable {
    /// The session stops at this nonce in either direction, one short of the 2^64 - 1 that
    /// Noise reserves, so no nonce can be reused and exhaustion is a clean close rather
    /// than a cipher error.
    static let nonceLimit: UInt64 = UInt64.max - 1

    let remotePubky: Pubky
    let handshakeHash: [UInt8]
    private let limits: ChannelLimits
    private var transport: TransportState
    private var decoder: FrameDecoder

    init(transport: consuming TransportState, decoder: FrameDecoder, remotePubky: Pubky, limits: ChannelLimits) {
        handshakeHash = transport.handshakeHash
        self.transport = transport
        self.decoder = decoder
        self.remotePubky = remotePubky
        self.limits = limits
    }

    /// Encrypts and frames one message. `messageTooLarge` leaves the session usable; any
    /// other error means the session must close.
    mutating func seal(_ message: [UInt8]) throws(ChannelError) -> [UInt8] {
        guard message.count <= limits.maxMessageLength else {
            throw .messageTooLarge(size: message.count, limit: limits.maxMessageLength)
        }
        guard transport.sendingNonce < Self.nonceLimit else { throw .nonceLimitReached }
        do {
            return try transport.writeMessage(message, prefixLength: Frame.headerLength, prefix: Frame.writeHeader)
        } catch {
            throw Self.channelError(error)
        }
    }

    /// Takes bytes from the peer; returns every message they complete. Any error is fatal.
    mutating func open(_ bytes: [UInt8]) throws(ChannelError) -> [[UInt8]] {
        decoder.feed(bytes)
        var messages: [[UInt8]] = []
        while let frame = try decoder.nextFrameBody() {
            // A peer that kept sending past the limit skipped its own clean close.
            guard transport.receivingNonce < Self.nonceLimit else { throw .nonceLimitReached }
            let message: [UInt8]
            do {
                message = try transport.readMessage(frame)
            } catch {
                throw Self.channelError(error)
            }
            guard message.count <= limits.maxMessageLength else {
                throw .messageTooLarge(size: message.count, limit: limits.maxMessageLength)
            }
            messages.append(message)
        }
        return messages
    }

    /// True while part of a frame is buffered: an end of stream now cuts a frame short.
    var hasPartialFrame: Bool { decoder.bufferedByteCount > 0 }

    /// The bytes still missing for the next whole frame.
    var bytesToNextFrame: Int { decoder.bytesToNextFrame }

    var sendingNonce: UInt64 { transport.sendingNonce }

    /// Test hook: jumps both nonces, so the close before exhaustion can be tested quickly.
    mutating func setNoncesForTesting(sending: UInt64, receiving: UInt64) {
        transport.setNoncesForTesting(sending: sending, receiving: receiving)
    }

    private static func channelError(_ error: NoiseError) -> ChannelError {
        switch error {
        case .decryptionFailed: return .decryptionFailed
        case .nonceExhausted: return .nonceLimitReached
        case .messageTooLarge(let size, let limit): return .messageTooLarge(size: size, limit: limit)
        default: return .handshakeFailed(error)
        }
    }
}
