/// Why bytes are not JSON the parser accepts. Positions are byte offsets; the peer's bytes
/// themselves are never echoed.
public enum JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(size: Int, limit: Int)
    /// Arrays and objects nested deeper than the limit.
    case tooDeep(limit: Int)
    case unexpectedEnd
    case unexpectedByte(offset: Int)
    /// A backslash escape JSON does not define, or a malformed `\u` escape.
    case invalidEscape(offset: Int)
    /// A string that is not valid UTF-8, or a `\u` escape with an unpaired surrogate.
    case invalidUnicode(offset: Int)
    /// An unescaped control character (below U+0020) inside a string.
    case controlCharacter(offset: Int)
    case invalidNumber(offset: Int)
    /// An object with the same key twice (refused; see `JSONParser`).
    case duplicateKey(offset: Int)
    /// Bytes after the one top-level value.
    case trailingData(offset: Int)

    public var description: String {
        switch self {
        case .tooLarge(let size, let limit): return "\(size) bytes, over the \(limit)-byte limit"
        case .tooDeep(let limit): return "nested deeper than \(limit) levels"
        case .unexpectedEnd: return "ends in the middle of a value"
        case .unexpectedByte(let offset): return "unexpected byte at offset \(offset)"
        case .invalidEscape(let offset): return "invalid escape sequence at offset \(offset)"
        case .invalidUnicode(let offset): return "invalid UTF-8 or unpaired surrogate in the string at offset \(offset)"
        case .controlCharacter(let offset): return "unescaped control character at offset \(offset)"
        case .invalidNumber(let offset): return "malformed number at offset \(offset)"
        case .duplicateKey(let offset): return "duplicate object key at offset \(offset)"
        case .trailingData(let offset): return "data after the end of the value, at offset \(offset)"
        }
    }
}
