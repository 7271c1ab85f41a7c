extension HTTPParser {
    /// The libFuzzer entry: runs arbitrary bytes through a request parser and a response
    /// parser, fed in pieces whose size the first byte picks (so split points get fuzzed
    /// too), then signals EOF. Errors are expected and ignored; a trap, hang or unbounded
    /// growth is the bug being searched for. Small limits make the limit paths reachable.
    public static func fuzz(_ data: [UInt8]) {
        let limits = Limits(maxHeaderSectionBytes: 512, maxHeaderCount: 8, maxBodyBytes: 2048,
                            maxChunkLineBytes: 64)
        let step = 1 + Int(data.first ?? 0) % 32
        for kind in [Kind.request, Kind.response] {
            var parser = HTTPParser(kind: kind, limits: limits)
            if data.count % 2 == 1 { parser.requestMethod = .head }
            var offset = 0
            var failed = false
            while offset < data.count && !failed {
                let end = min(data.count, offset + step)
                parser.append(Array(data[offset..<end]))
                offset = end
                failed = !drain(&parser)
            }
            if !failed {
                parser.finish()
                _ = drain(&parser)
            }
        }
    }

    /// Pulls every available event; false once the parser has failed.
    private static func drain(_ parser: inout HTTPParser) -> Bool {
        do {
            while try parser.next() != nil {}
            return true
        } catch {
            return false
        }
    }
}
