/// The bounds one secure channel enforces. Breaking one closes that connection only.
///
/// Timeouts are in milliseconds because they are handed to a `Sleeper`, which the event
/// loop backs with its timers.
public struct ChannelLimits: Sendable, Equatable {
    /// The wire format's ceiling: the 2-byte length prefix cannot say more.
    public static let wireFrameLimit = 65535
    /// The largest plaintext the wire allows: a frame less the 16-byte ChaCha20-Poly1305 tag.
    public static let wireMessageLimit = wireFrameLimit - TransportState.tagLength

    /// From the first byte until both sides are authenticated.
    public var handshakeTimeoutMilliseconds: UInt64
    /// After the handshake: how long the connection may carry no frame in either direction.
    public var idleTimeoutMilliseconds: UInt64
    /// The largest frame body (ciphertext) accepted from the peer.
    public var maxFrameLength: Int
    /// The largest message (plaintext) sent or accepted.
    public var maxMessageLength: Int

    public init(handshakeTimeoutMilliseconds: UInt64 = 10_000, idleTimeoutMilliseconds: UInt64 = 60_000,
                maxFrameLength: Int = ChannelLimits.wireFrameLimit,
                maxMessageLength: Int = ChannelLimits.wireMessageLimit) {
        // Values past what the wire can carry would only make errors surface later and
        // less clearly (in the Noise layer), so they are clamped here.
        self.handshakeTimeoutMilliseconds = max(1, handshakeTimeoutMilliseconds)
        self.idleTimeoutMilliseconds = max(1, idleTimeoutMilliseconds)
        self.maxFrameLength = min(max(maxFrameLength, TransportState.tagLength), Self.wireFrameLimit)
        self.maxMessageLength = min(max(maxMessageLength, 0), Self.wireMessageLimit)
    }
}
