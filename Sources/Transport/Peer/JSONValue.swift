/// A parsed JSON value (RFC 8259). Numbers keep their literal text: the peer layer never
/// does arithmetic on them, and amounts in satoshis must not pass through a Double.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number's text exactly as sent, already checked against JSON's number grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Keys are unique (the parser refuses duplicates), so member order carries no meaning.
    case object([String: JSONValue])

    /// The member `key` of an object; nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
