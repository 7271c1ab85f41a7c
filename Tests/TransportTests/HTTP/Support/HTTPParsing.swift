@testable import Transport

/// A parsed message with its body joined, so results of different byte splits compare.
struct ParsedMessage: Equatable {
    var request: HTTPRequest?
    var response: HTTPResponse?
    var keepAlive: Bool
}

/// The outcome of parsing a whole input: the complete messages, then either a clean end
/// (error nil) or the error that stopped parsing.
struct ParseOutcome: Equatable {
    var messages: [ParsedMessage]
    var error: HTTPError?
}

enum HTTPParsing {
    /// Feeds `bytes` in pieces cut at `cuts` (offsets), pulling events after each piece,
    /// then signals EOF when `eof` is set.
    static func parse(_ kind: HTTPParser.Kind, _ bytes: [UInt8], cuts: [Int] = [],
                      limits: HTTPParser.Limits = .client, method: HTTPMethod = .get,
                      eof: Bool = true) -> ParseOutcome {
        var parser = HTTPParser(kind: kind, limits: limits)
        parser.requestMethod = method
        var messages: [ParsedMessage] = []
        var current: ParsedMessage?
        func drain() throws(HTTPError) {
            while let event = try parser.next() {
                switch event {
                case .requestHead(let request): current = ParsedMessage(request: request, keepAlive: false)
                case .responseHead(let response): current = ParsedMessage(response: response, keepAlive: false)
                case .body(let piece):
                    precondition(!piece.isEmpty, "the parser never emits empty body pieces")
                    current?.request?.body += piece
                    current?.response?.body += piece
                case .end(let keepAlive):
                    if var message = current {
                        message.keepAlive = keepAlive
                        messages.append(message)
                    }
                    current = nil
                }
            }
        }
        var start = 0
        do {
            for cut in cuts.sorted() + [bytes.count] where cut >= start && cut <= bytes.count {
                parser.append(Array(bytes[start..<cut]))
                start = cut
                try drain()
            }
            if eof {
                parser.finish()
                try drain()
            }
            return ParseOutcome(messages: messages, error: nil)
        } catch {
            return ParseOutcome(messages: messages, error: error)
        }
    }

    static func everyByte(_ count: Int) -> [Int] { Array(0...count) }

    static func randomCuts(_ count: Int, using generator: inout some RandomNumberGenerator) -> [Int] {
        guard count > 1 else { return [] }
        return (0..<Int.random(in: 1...max(1, count / 3), using: &generator)).map { _ in
            Int.random(in: 0...count, using: &generator)
        }
    }
}

/// A seeded generator so random splits are reproducible (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
