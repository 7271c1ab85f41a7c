/// Splits a byte stream into frames, however the bytes were chunked on the way.
///
/// Pure and incremental: `feed` appends what arrived, `nextFrame` returns one whole frame
/// body or nil when more bytes are needed. A length outside `minimumLength...maximumLength`
/// is an error as soon as its two header bytes are in, before the body is buffered, so a
/// peer cannot make us hold more than one frame's worth of memory. After an error the
/// decoder stays failed: the stream has lost its framing and cannot be resynchronised.
public struct FrameDecoder: Sendable {
    /// The largest body accepted. Mutable because the handshake uses a small bound and the
    /// transport phase the configured one, over the same buffered bytes.
    public var maximumLength: Int
    public var minimumLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: ChannelError?

    public init(maximumLength: Int = ChannelLimits.wireFrameLimit, minimumLength: Int = Frame.minimumBodyLength) {
        self.maximumLength = maximumLength
        self.minimumLength = minimumLength
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - start }

    /// How many more bytes complete the next frame (its header first): what a reader may
    /// wait for before decoding again. At least 1.
    public var bytesToNextFrame: Int {
        guard let length = announcedLength else { return Frame.headerLength - bufferedByteCount }
        return max(1, Frame.headerLength + length - bufferedByteCount)
    }

    /// The next frame's body length from its header, once the header is in.
    private var announcedLength: Int? {
        guard bufferedByteCount >= Frame.headerLength else { return nil }
        return Int(buffer[start]) << 8 | Int(buffer[start + 1])
    }

    public mutating func feed(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        if start >= buffer.count {
            // Everything before was consumed: take the new bytes as they are, no copy.
            buffer = bytes
            start = 0
            return
        }
        // Drop consumed bytes before growing, so the buffer stays about one frame long.
        if start > 4096 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer += bytes
    }

    public mutating func nextFrame() throws(ChannelError) -> [UInt8]? {
        try nextFrameBody().map { Array($0) }
    }

    /// The next whole frame's body as a view of the decoder's buffer, not a copy: read it
    /// before the next `feed`, which may reuse the buffer.
    public mutating func nextFrameBody() throws(ChannelError) -> ArraySlice<UInt8>? {
        if let failure { throw failure }
        guard let length = announcedLength else { return nil }
        if length > maximumLength {
            failure = .frameTooLarge(length: length, limit: maximumLength)
        } else if length < minimumLength {
            failure = .frameTooShort(length: length, minimum: minimumLength)
        }
        if let failure { throw failure }
        guard bufferedByteCount >= Frame.headerLength + length else { return nil }
        let bodyStart = start + Frame.headerLength
        let body = buffer[bodyStart..<bodyStart + length]
        start = bodyStart + length
        return body
    }

    /// Every complete frame now buffered.
    public mutating func frames() throws(ChannelError) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        while let frame = try nextFrame() { frames.append(frame) }
        return frames
    }

    /// libFuzzer entry: any bytes, chunked by the data itself, must give frames or a typed
    /// error, never a crash, and never a frame outside the bounds.
    public static func fuzz(_ data: [UInt8]) {
        guard let first = data.first else { return }
        // The first byte picks the chunk size, so the fuzzer also explores split headers.
        let chunk = Int(first % 7) + 1
        var decoder = FrameDecoder(maximumLength: 1 + Int(first) * 257)
        var offset = 1
        while offset < data.count {
            let end = min(offset + chunk, data.count)
            decoder.feed(Array(data[offset..<end]))
            offset = end
            do {
                while let frame = try decoder.nextFrame() {
                    precondition(frame.count >= decoder.minimumLength && frame.count <= decoder.maximumLength)
                }
            } catch {
                return
            }
        }
    }
}
