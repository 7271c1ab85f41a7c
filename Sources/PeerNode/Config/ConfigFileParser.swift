/// Reads bitcoin.conf-style text: one `key=value` per line, blank lines, and comments
/// from `#`. A `#` that starts a line, or follows a space or tab, starts a comment; a `#`
/// inside a value (`rpcpassword=a#b`) is part of it. Spaces around keys and values are
/// trimmed. Sections (`[regtest]`) are refused rather than half-supported: each node has
/// one network, so one flat file says everything.
///
/// Pure: no file access, so the rules are table-tested.
public enum ConfigFileParser {
    public static func parse(_ text: String, fileName: String) throws(ConfigError) -> [ConfigEntry] {
        var entries: [ConfigEntry] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift, so both line ends are separators here.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let origin = "\(fileName) line \(lineNumber)"
            let line = trim(stripComment(rawLine))
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                throw ConfigError(key: nil, value: nil, origin: origin,
                                  problem: .syntax("sections such as \(line) are not supported; write every key at the top level"))
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(key: nil, value: nil, origin: origin,
                                  problem: .syntax("expected key=value, found a line without '='; write it as key=value, "
                                                   + "or start it with # to make it a comment"))
            }
            let key = trim(line[..<equals])
            let value = trim(line[line.index(after: equals)...])
            guard !key.isEmpty else {
                throw ConfigError(key: nil, value: nil, origin: origin, problem: .syntax("a line starts with '=' and names no key"))
            }
            entries.append(ConfigEntry(key: String(key), value: String(value), origin: origin))
        }
        return entries
    }

    /// `--key=value` arguments (the CLI strips its own options first). A bare `--flag`
    /// means `flag=1`, as bitcoind reads it.
    public static func parseOverrides(_ arguments: [String]) throws(ConfigError) -> [ConfigEntry] {
        var entries: [ConfigEntry] = []
        for argument in arguments {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ConfigError(key: nil, value: nil, origin: ConfigEntry.commandLine,
                                  problem: .syntax("expected --key=value, got \"\(argument)\""))
            }
            let body = argument.dropFirst(2)
            if let equals = body.firstIndex(of: "=") {
                entries.append(ConfigEntry(key: String(body[..<equals]), value: String(body[body.index(after: equals)...]),
                                           origin: ConfigEntry.commandLine))
            } else {
                entries.append(ConfigEntry(key: String(body), value: "1", origin: ConfigEntry.commandLine))
            }
        }
        return entries
    }

    private static func stripComment(_ line: Substring) -> Substring {
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if character == "#" && (previous == " " || previous == "\t") { return line[..<index] }
            previous = character
        }
        return line
    }

    static func trim(_ text: Substring) -> Substring {
        var result = text
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
