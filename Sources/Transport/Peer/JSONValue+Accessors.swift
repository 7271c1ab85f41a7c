/// Typed reads of parsed values, and integer construction, for the layers that give
/// messages a schema. Integers are read from the number's text, never through a Double,
/// so every amount up to the type's limit is exact.
extension JSONValue {
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The number as an Int64, only when its text is a plain integer (no fraction, no
    /// exponent, not `-0`) within Int64's range. `1.0` and `1e3` are refused, not rounded:
    /// a signed amount has exactly one spelling.
    public var int64Value: Int64? {
        guard let text = integerText else { return nil }
        return Int64(text)
    }

    /// The number as a UInt64, under the same rules as `int64Value`, and not negative.
    public var uint64Value: UInt64? {
        guard let text = integerText, !text.hasPrefix("-") else { return nil }
        return UInt64(text)
    }

    /// A number holding `value` in plain decimal (its canonical spelling).
    public static func integer(_ value: some BinaryInteger) -> JSONValue {
        .number(String(value))
    }

    private var integerText: String? {
        guard case .number(let text) = self else { return nil }
        guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              text != "-0" else { return nil }
        return text
    }
}
