import Transport

/// Splits a byte stream into newline-terminated lines, each at most `maxLineBytes` (a
/// longer one is an error, so a client cannot make the daemon buffer without bound).
struct ControlLineReader {
    enum Failure: Error, Equatable {
        case lineTooLong(limit: Int)
    }

    private let stream: any ByteStream
    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var ended = false

    init(stream: any ByteStream, maxLineBytes: Int) {
        self.stream = stream
        self.maxLineBytes = maxLineBytes
    }

    /// The next line without its `\n` (a trailing `\r` is dropped too); nil at the end of
    /// the stream. Bytes after the last newline at the end count as a final line.
    mutating func next() async throws -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            if buffer.count > maxLineBytes { throw Failure.lineTooLong(limit: maxLineBytes) }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer = [] }
                return buffer
            }
            if let chunk = try await stream.read() {
                buffer += chunk
            } else {
                ended = true
            }
        }
    }
}
