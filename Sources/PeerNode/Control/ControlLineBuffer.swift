/// Newline-terminated lines out of bytes as they arrive, each at most `maxLineBytes` (a
/// longer one is an error, so the other side cannot make the reader buffer without
/// bound). Pure: `ControlLineReader` feeds it from a `ByteStream`, the command line's
/// blocking client from a socket.
struct ControlLineBuffer {
    enum Failure: Error, Equatable {
        case lineTooLong(limit: Int)
    }

    private let maxLineBytes: Int
    private var buffer: [UInt8] = []
    private var ended = false

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    /// No more bytes will come: what is left after the last newline is a final line.
    mutating func end() { ended = true }

    /// The next whole line without its `\n` (a trailing `\r` is dropped too); nil when
    /// more bytes are needed, or at the end once every line is out.
    mutating func next() throws(Failure) -> [UInt8]? {
        if let newline = buffer.firstIndex(of: 0x0A) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            if line.last == 0x0D { line.removeLast() }
            return line
        }
        if buffer.count > maxLineBytes { throw .lineTooLong(limit: maxLineBytes) }
        guard ended, !buffer.isEmpty else { return nil }
        defer { buffer = [] }
        return buffer
    }

    /// True once the end came and every line is out.
    var isFinished: Bool { ended && buffer.isEmpty }
}
