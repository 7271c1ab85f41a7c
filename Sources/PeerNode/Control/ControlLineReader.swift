import Transport

/// Splits a byte stream into newline-terminated lines, each at most `maxLineBytes` (a
/// longer one is an error, so a client cannot make the daemon buffer without bound).
struct ControlLineReader {
    typealias Failure = ControlLineBuffer.Failure

    private let stream: any ByteStream
    private var lines: ControlLineBuffer

    init(stream: any ByteStream, maxLineBytes: Int) {
        self.stream = stream
        lines = ControlLineBuffer(maxLineBytes: maxLineBytes)
    }

    /// The next line without its `\n` (a trailing `\r` is dropped too); nil at the end of
    /// the stream. Bytes after the last newline at the end count as a final line.
    mutating func next() async throws -> [UInt8]? {
        while true {
            if let line = try lines.next() { return line }
            if lines.isFinished { return nil }
            if let chunk = try await stream.read() {
                lines.append(chunk)
            } else {
                lines.end()
            }
        }
    }
}
