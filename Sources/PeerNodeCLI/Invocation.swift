/// What the whole command line asked for before it is parsed: `--json` decides how even a
/// malformed command line is answered (`{"error": ...}` on stdout), so it is read first.
enum Invocation {
    static let json: Bool = {
        let words = CommandLine.arguments.dropFirst()
        return words.prefix { $0 != "--" }.contains("--json")
    }()
}

/// `peernode --version`.
enum Version {
    static let current = "0.1.0"
}
