/// Splits a streamed body into newline-delimited lines (LND's REST streams send one JSON
/// object per line). Pure, so chunk boundaries that cut lines anywhere are tested without
/// a connection. Lines come without their LF or CRLF; blank lines are skipped, as
/// newline-delimited JSON readers do.
struct HTTPLineSplitter: Sendable {
    let maxLineBytes: Int
    private var partial: [UInt8] = []

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// The lines completed by this piece of body.
    mutating func append(_ piece: [UInt8]) throws(HTTPError) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = piece.startIndex
        while let lineFeed = piece[start...].firstIndex(of: 0x0A) {
            let tail = piece[start..<lineFeed]
            guard partial.count + tail.count <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
            partial += tail
            if partial.last == 0x0D { partial.removeLast() }
            if !partial.isEmpty { lines.append(partial) }
            partial = []
            start = lineFeed + 1
        }
        let rest = piece[start...]
        guard partial.count + rest.count <= maxLineBytes else { throw .lineTooLong(limit: maxLineBytes) }
        partial += rest
        return lines
    }

    /// The last line when the body ends without a final line feed.
    mutating func finish() -> [UInt8]? {
        defer { partial = [] }
        if partial.last == 0x0D { partial.removeLast() }
        return partial.isEmpty ? nil : partial
    }
}
