/// Cuts the server's byte stream into newline-terminated lines, refusing any line longer
/// than `maxLineBytes` as soon as the buffer shows it, so a server that never sends a
/// newline cannot make the node buffer without end. Pure: bytes in, lines out.
struct ElectrumLineSplitter: Sendable {
    let maxLineBytes: Int
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already searched for a newline.
    private var scanned = 0

    init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// The complete lines in what arrived so far (without their `\n`, or a `\r` before it).
    mutating func append(_ bytes: [UInt8]) throws(ElectrumError) -> [[UInt8]] {
        buffer += bytes
        var lines: [[UInt8]] = []
        var start = 0
        var index = scanned
        while index < buffer.count {
            if buffer[index] == 0x0A {
                var end = index
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                guard end - start <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
                lines.append(Array(buffer[start..<end]))
                start = index + 1
            }
            index += 1
        }
        buffer.removeFirst(start)
        scanned = buffer.count
        guard buffer.count <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
        return lines
    }
}
