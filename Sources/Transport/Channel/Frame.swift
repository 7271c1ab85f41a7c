/// The channel's framing: a 2-byte big-endian length, then that many bytes (a Noise
/// handshake message or a Noise transport ciphertext).
public enum Frame {
    public static let headerLength = 2
    /// Nothing the channel sends is shorter: every Noise message here carries at least a
    /// 16-byte tag, so a shorter frame can only be garbage.
    public static let minimumBodyLength = TransportState.tagLength

    /// Prefixes `body` with its length. Callers keep bodies within 65535 bytes (the Noise
    /// layer refuses larger messages before they get here).
    static func encode(_ body: [UInt8]) -> [UInt8] {
        var frame = [UInt8](repeating: 0, count: headerLength)
        frame.withUnsafeMutableBytes { writeHeader($0, bodyLength: body.count) }
        return frame + body
    }

    /// Writes the header of a `bodyLength`-byte frame into `header` (`headerLength` bytes),
    /// for a body sealed in place behind it.
    static func writeHeader(_ header: UnsafeMutableRawBufferPointer, bodyLength: Int) {
        precondition(bodyLength <= ChannelLimits.wireFrameLimit, "frame body over 65535 bytes")
        header[0] = UInt8(truncatingIfNeeded: bodyLength >> 8)
        header[1] = UInt8(truncatingIfNeeded: bodyLength)
    }
}
