/// The two fields the peer layer reads from every message; the rest belongs to the swap
/// layer above, which parses the same bytes again with its own schema.
///
/// A message is a JSON object with a non-empty string `"type"`. `"request_id"`, when
/// present, is a string of 1 to 128 bytes (bounded so the tables of pending ids stay
/// small). Anything else is not a peernode message and closes the connection.
public struct MessageEnvelope: Sendable, Equatable {
    public static let maxRequestIDLength = 128

    public let type: String
    public let requestID: String?

    public init(type: String, requestID: String?) {
        self.type = type
        self.requestID = requestID
    }

    public static func parse(_ message: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) throws(ChannelError) -> MessageEnvelope {
        let value: JSONValue
        do {
            value = try JSONParser.parse(message, limits: limits)
        } catch {
            throw .invalidJSON(error)
        }
        guard case .object = value else { throw .invalidEnvelope(reason: "not a JSON object") }
        guard let type = value["type"]?.stringValue, !type.isEmpty else {
            throw .invalidEnvelope(reason: "\"type\" is missing or not a non-empty string")
        }
        guard let field = value["request_id"] else { return MessageEnvelope(type: type, requestID: nil) }
        guard let id = field.stringValue, (1...maxRequestIDLength).contains(id.utf8.count) else {
            throw .invalidEnvelope(reason: "\"request_id\" is not a string of 1 to \(maxRequestIDLength) bytes")
        }
        return MessageEnvelope(type: type, requestID: id)
    }
}
