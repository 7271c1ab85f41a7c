import Transport

/// One declared argument of an RPC method, as Core's `RPCArg`: its names (`verbosity|verbose`
/// accepts either as a named parameter), JSON type, whether it is required, and the text
/// its help line shows.
public struct RPCArgument: Sendable {
    public enum Kind: Sendable {
        case number, string, hex, bool, array, object
        /// BTC as a number or a string; checked when parsed, not by type.
        case amount

        /// The JSON type Core checks before the method runs; nil when the method checks.
        var expectedType: String? {
            switch self {
            case .number: return "number"
            case .string, .hex: return "string"
            case .bool: return "bool"
            case .array: return "array"
            case .object: return "object"
            case .amount: return nil
            }
        }

        var helpName: String {
            switch self {
            case .number: return "numeric"
            case .string, .hex: return "string"
            case .bool: return "boolean"
            case .array: return "json array"
            case .object: return "json object"
            case .amount: return "numeric or string"
            }
        }
    }

    public let names: String
    public let kind: Kind
    /// Nil when required; otherwise the default as help prints it (`1`, `false`, `"unset"`),
    /// or an empty string for an optional argument without a stated default.
    public let defaultText: String?
    public let description: String
    /// Core skips the type check for arguments that take several types (`verbosity`
    /// accepts a number or a boolean) and checks them in the method.
    public let skipTypeCheck: Bool

    public init(_ names: String, _ kind: Kind, default defaultText: String? = nil, skipTypeCheck: Bool = false,
                _ description: String) {
        self.names = names
        self.kind = kind
        self.defaultText = defaultText
        self.description = description
        self.skipTypeCheck = skipTypeCheck
    }

    public var isRequired: Bool { defaultText == nil }
    var firstName: String { String(names.split(separator: "|").first ?? Substring(names)) }
    var allNames: [String] { names.split(separator: "|").map(String.init) }

    /// Core's `RPCArg::MatchesType`: nil when it matches, else the mismatch text.
    func mismatch(_ value: JSONValue) -> String? {
        if skipTypeCheck { return nil }
        if !isRequired, value == .null { return nil }
        guard let expected = kind.expectedType else { return nil }
        let actual = RPCArgument.typeName(value)
        return actual == expected ? nil : "JSON value of type \(actual) is not of expected type \(expected)"
    }

    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// How the argument appears in the help's first line: strings quoted, arrays as `[...]`.
    var synopsis: String {
        switch kind {
        case .string, .hex: return "\"\(firstName)\""
        case .array: return "[\"\(firstName)\",...]"
        default: return firstName
        }
    }

    /// `1. height    (numeric, required) The height index`
    func helpLine(position: Int) -> String {
        let requirement: String
        if let defaultText {
            requirement = defaultText.isEmpty ? "optional" : "optional, default=\(defaultText)"
        } else {
            requirement = "required"
        }
        return "\(position). \(names)    (\(kind.helpName), \(requirement)) \(description)"
    }
}
