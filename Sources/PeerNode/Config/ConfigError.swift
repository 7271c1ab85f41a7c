/// Why a configuration cannot be used. Every case names the key (when there is one),
/// where its value came from (`peernode.conf line 7`, `command line`), what is wrong and
/// what is allowed, so the message alone tells the user what to change. Secret values
/// (the RPC password) are never repeated back.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        /// A line that is not `key=value`, a comment or blank.
        case syntax(String)
        /// A key no version of the table knows; `suggestion` is a close known key.
        case unknownKey(suggestion: String?)
        /// The same single-valued key twice in one source (`firstOrigin` is the other).
        case duplicate(firstOrigin: String)
        /// The value does not parse or is out of range: what is wrong, what is allowed.
        case invalidValue(problem: String, allowed: String)
        /// A required key is not set.
        case missing(String)
        /// Allowed in general, refused on mainnet without `--allow-unsafe`.
        case unsafe(String)
        /// The file itself cannot be read.
        case unreadable(String)
    }

    /// The key at fault; nil for a file-level problem.
    public let key: String?
    /// The offending value as written; nil when it is secret or there is none.
    public let value: String?
    /// Where the value came from: `<file> line <n>`, `command line`, or the file's path.
    public let origin: String?
    public let problem: Problem

    public init(key: String?, value: String?, origin: String?, problem: Problem) {
        self.key = key
        self.value = value
        self.origin = origin
        self.problem = problem
    }

    public var description: String {
        var subject = ""
        if let key {
            subject = value.map { "\(key)=\($0)" } ?? key
        }
        if let origin {
            subject = subject.isEmpty ? origin : "\(subject) (\(origin))"
        }
        let prefix = subject.isEmpty ? "" : subject + ": "
        switch problem {
        case .syntax(let what):
            return prefix + what
        case .unknownKey(let suggestion):
            let hint = suggestion.map { "; did you mean \($0)?" } ?? ""
            return prefix + "unknown key\(hint) (`peernode help config` lists every key)"
        case .duplicate(let firstOrigin):
            return prefix + "set twice (also at \(firstOrigin)); keep one"
        case .invalidValue(let what, let allowed):
            return prefix + "\(what); allowed: \(allowed)"
        case .missing(let what):
            return prefix + "not set; \(what)"
        case .unsafe(let why):
            return prefix + "unsafe on mainnet: \(why); start with --allow-unsafe to accept the risk"
        case .unreadable(let why):
            return prefix + why
        }
    }
}
