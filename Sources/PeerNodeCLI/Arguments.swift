/// The command line split into command words, options and positionals, the way every
/// `peernode` command reads it:
///
/// - `--name=value` and `--name value` for options that take a value, `--flag` for
///   flags; options may come before or after the command words;
/// - `--` ends the options (what follows is positional even if it starts with `-`);
/// - `-h` is `--help`.
///
/// Which options take a value is known up front, so `--datadir /x status` is never read
/// as a flag followed by two words.
struct Arguments: Sendable {
    var positionals: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []
    /// `--key=value` options no command declared, kept in order (the config overrides
    /// of `peernode run`).
    var unknown: [String] = []

    static let valueOptions: Set<String> = ["datadir", "socket", "network", "fee-rate", "to", "limit", "contact",
                                                 "contract-type", "quote", "from-height", "gap-limit", "contract",
                                                 "max-fee", "from", "since", "pubky-recovery-file", "pkarr-relay"]
    static let flagOptions: Set<String> = ["json", "help", "allow-unsafe", "refresh", "replace", "yes", "version",
                                           "no-contacts"]

    static func parse(_ words: [String]) throws(UsageError) -> Arguments {
        var parsed = Arguments()
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            if word == "-h" { parsed.flags.insert("help"); continue }
            guard word.hasPrefix("--") else { throw UsageError("unknown option \(word)") }
            let body = word.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            if valueOptions.contains(name) {
                if let inlineValue {
                    parsed.options[name] = inlineValue
                } else {
                    guard index < words.count else { throw UsageError("--\(name) needs a value") }
                    parsed.options[name] = words[index]
                    index += 1
                }
            } else if flagOptions.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                parsed.flags.insert(name)
            } else {
                parsed.unknown.append(word)
            }
        }
        return parsed
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
}
