/// A Noise handshake pattern: pre-messages and message patterns made of tokens.
///
/// The patterns are written below in the spec's own notation and parsed, so the table can
/// be checked against the Noise spec (sections 7.4, 7.5 and 18) line by line. PSK
/// modifiers (`psk0` ... `pskN`, combined with `+`) are applied as section 9.2 says.
public struct HandshakePattern: Sendable, Equatable, CustomStringConvertible {
    public enum Token: String, Sendable {
        case e, s, ee, es, se, ss, psk
    }

    /// The full pattern name including modifiers, e.g. `XXpsk0+psk1`.
    public let name: String
    /// Keys the initiator's side is known to have sent before the handshake ("-> s").
    public let initiatorPreMessage: [Token]
    /// Keys the responder's side is known to have sent before the handshake ("<- s").
    public let responderPreMessage: [Token]
    /// Message patterns; even indices are sent by the initiator, odd by the responder.
    public let messages: [[Token]]

    /// One-way patterns (N, K, X and their variants) have a single message; afterwards only
    /// the initiator may send.
    public var isOneWay: Bool { messages.count == 1 }
    /// Any `psk` token switches on PSK mode, where `e` also feeds MixKey.
    public var isPSKMode: Bool { pskCount > 0 }
    public var pskCount: Int { messages.reduce(0) { $0 + $1.filter { $0 == .psk }.count } }

    public var description: String { name }

    /// Parses a pattern name such as `XK`, `X1K1`, `NNpsk0` or `XXpsk0+psk1+psk2+psk3`.
    public init(name: String) throws(NoiseError) {
        // The base name is upper-case letters and digits; modifiers start with a lower-case letter.
        let baseName = String(name.prefix { $0.isUppercase || $0.isNumber })
        guard let notation = Self.notation[baseName] else { throw .unsupportedPattern(name) }
        let parsed = try Self.parse(notation, name: name)
        var messages = parsed.messages

        let modifierText = name.dropFirst(baseName.count)
        if !modifierText.isEmpty {
            var seen = Set<Int>()
            for modifier in modifierText.split(separator: "+", omittingEmptySubsequences: false) {
                guard modifier.hasPrefix("psk"), let position = Int(modifier.dropFirst(3)),
                      String(position) == modifier.dropFirst(3),  // no "psk01" or "psk+1"
                      position <= messages.count, seen.insert(position).inserted
                else { throw .unsupportedPattern(name) }
                // psk0 opens the first message; pskN (N >= 1) closes message N.
                if position == 0 {
                    messages[0].insert(.psk, at: 0)
                } else {
                    messages[position - 1].append(.psk)
                }
            }
        }
        self.name = name
        initiatorPreMessage = parsed.initiator
        responderPreMessage = parsed.responder
        self.messages = messages
    }

    /// Turns spec notation into token lists, checking that messages alternate starting with
    /// the initiator and that pre-messages come before "...".
    private static func parse(_ lines: [String], name: String) throws(NoiseError)
        -> (initiator: [Token], responder: [Token], messages: [[Token]]) {
        var initiatorPre: [Token] = []
        var responderPre: [Token] = []
        var messages: [[Token]] = []
        let hasPreMessages = lines.contains("...")
        var inPreMessages = hasPreMessages
        for line in lines {
            if line == "..." {
                inPreMessages = false
                continue
            }
            let fromInitiator = line.hasPrefix("->")
            let tokens = try line.dropFirst(2).split(separator: ",").map { (text) throws(NoiseError) -> Token in
                guard let token = Token(rawValue: text.trimmingSpaces) else { throw .unsupportedPattern(name) }
                return token
            }
            if inPreMessages {
                if fromInitiator { initiatorPre = tokens } else { responderPre = tokens }
            } else {
                guard fromInitiator == (messages.count % 2 == 0) else { throw .unsupportedPattern(name) }
                messages.append(tokens)
            }
        }
        return (initiatorPre, responderPre, messages)
    }

    /// The one-way (7.4), fundamental interactive (7.5) and deferred (18) patterns.
    private static let notation: [String: [String]] = [
        "N": ["<- s", "...", "-> e, es"],
        "K": ["-> s", "<- s", "...", "-> e, es, ss"],
        "X": ["<- s", "...", "-> e, es, s, ss"],

        "NN": ["-> e", "<- e, ee"],
        "NK": ["<- s", "...", "-> e, es", "<- e, ee"],
        "NX": ["-> e", "<- e, ee, s, es"],
        "XN": ["-> e", "<- e, ee", "-> s, se"],
        "XK": ["<- s", "...", "-> e, es", "<- e, ee", "-> s, se"],
        "XX": ["-> e", "<- e, ee, s, es", "-> s, se"],
        "KN": ["-> s", "...", "-> e", "<- e, ee, se"],
        "KK": ["-> s", "<- s", "...", "-> e, es, ss", "<- e, ee, se"],
        "KX": ["-> s", "...", "-> e", "<- e, ee, se, s, es"],
        "IN": ["-> e, s", "<- e, ee, se"],
        "IK": ["<- s", "...", "-> e, es, s, ss", "<- e, ee, se"],
        "IX": ["-> e, s", "<- e, ee, se, s, es"],

        "NK1": ["<- s", "...", "-> e", "<- e, ee, es"],
        "NX1": ["-> e", "<- e, ee, s", "-> es"],
        "X1N": ["-> e", "<- e, ee", "-> s", "<- se"],
        "X1K": ["<- s", "...", "-> e, es", "<- e, ee", "-> s", "<- se"],
        "XK1": ["<- s", "...", "-> e", "<- e, ee, es", "-> s, se"],
        "X1K1": ["<- s", "...", "-> e", "<- e, ee, es", "-> s", "<- se"],
        "X1X": ["-> e", "<- e, ee, s, es", "-> s", "<- se"],
        "XX1": ["-> e", "<- e, ee, s", "-> es, s, se"],
        "X1X1": ["-> e", "<- e, ee, s", "-> es, s", "<- se"],
        "K1N": ["-> s", "...", "-> e", "<- e, ee", "-> se"],
        "K1K": ["-> s", "<- s", "...", "-> e, es", "<- e, ee", "-> se"],
        "KK1": ["-> s", "<- s", "...", "-> e", "<- e, ee, se, es"],
        "K1K1": ["-> s", "<- s", "...", "-> e", "<- e, ee, es", "-> se"],
        "K1X": ["-> s", "...", "-> e", "<- e, ee, s, es", "-> se"],
        "KX1": ["-> s", "...", "-> e", "<- e, ee, se, s", "-> es"],
        "K1X1": ["-> s", "...", "-> e", "<- e, ee, s", "-> se, es"],
        "I1N": ["-> e, s", "<- e, ee", "-> se"],
        "I1K": ["<- s", "...", "-> e, es, s", "<- e, ee", "-> se"],
        "IK1": ["<- s", "...", "-> e, s", "<- e, ee, se, es"],
        "I1K1": ["<- s", "...", "-> e, s", "<- e, ee, es", "-> se"],
        "I1X": ["-> e, s", "<- e, ee, s, es", "-> se"],
        "IX1": ["-> e, s", "<- e, ee, se, s", "-> es"],
        "I1X1": ["-> e, s", "<- e, ee, s", "-> se, es"],
    ]
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
