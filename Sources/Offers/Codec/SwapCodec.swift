import Transport

/// Bytes to JSON for swap/1, with the peer layer's bounds.
public enum SwapCodec {
    public static func parse(_ bytes: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) throws(OffersError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw .invalidJSON(error)
        }
    }

    /// A field map with `request_id` set, for the `fields` of request-scoped messages.
    static func fields(requestID: String, _ members: [String: JSONValue]) -> [String: JSONValue] {
        var all = members
        all["request_id"] = .string(requestID)
        return all
    }
}
