import Transport

/// LND's REST conventions for JSON (its gateway's protobuf mapping), shared by the
/// client and the regtest hub's server so both sides read and write the same shapes:
///
/// - field names in snake_case, as in the .proto files;
/// - `bytes` as standard base64 with padding (read in either alphabet);
/// - 64-bit integers as decimal strings (JavaScript cannot hold them in a number);
///   32-bit integers as numbers; either spelling is read for both;
/// - enums by name (`"state": "ACCEPTED"`);
/// - every field written, defaults included;
/// - a streamed response is one `{"result": {...}}` object per line, or an
///   `{"error": {...}}` line that ends it.
public enum LNDJSON {
    /// Bodies up to this size are parsed; LND's answers here are a few kilobytes.
    public static let parserLimits = JSONParser.Limits(maxLength: 4 * 1024 * 1024, maxDepth: 32)

    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try JSONParser.parse(bytes, limits: parserLimits)
    }

    // MARK: writing

    /// A 64-bit integer field: a decimal string.
    public static func int64(_ value: some BinaryInteger) -> JSONValue { .string(String(value)) }

    /// A 32-bit integer field: a number.
    public static func int32(_ value: some BinaryInteger) -> JSONValue { .integer(value) }

    /// A `bytes` field: standard base64.
    public static func bytes(_ value: [UInt8]) -> JSONValue { .string(LNDBase64.encode(value)) }

    /// The bytes of one JSON line of a streamed response (`{"result": message}` + LF).
    public static func streamLine(result: JSONValue) -> [UInt8] {
        JSONValue.object(["result": result]).canonicalBytes + [0x0A]
    }

    // MARK: reading

    /// An unsigned integer field written as a string or a number; nil when absent,
    /// negative, fractional or out of range. A missing field reads as absent, not 0:
    /// callers decide whether a default is acceptable.
    public static func uint64(_ value: JSONValue?) -> UInt64? {
        switch value {
        case .string(let text)?: return text.isEmpty ? nil : UInt64(text)
        case .number?: return value?.uint64Value
        default: return nil
        }
    }

    public static func int64(_ value: JSONValue?) -> Int64? {
        switch value {
        case .string(let text)?: return text.isEmpty ? nil : Int64(text)
        case .number?: return value?.int64Value
        default: return nil
        }
    }

    /// A `bytes` field; the empty string is empty bytes, as LND writes an unset field.
    public static func bytes(_ value: JSONValue?) -> [UInt8]? {
        guard let text = value?.stringValue else { return nil }
        return LNDBase64.decode(text)
    }
}
