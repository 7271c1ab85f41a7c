import Transport

/// One swap/1 message type: its `type` tag, strict decoding from the fields of a parsed
/// object, and its fields for encoding (every field except `type` and `signature`).
public protocol SwapMessageBody: Sendable, Equatable {
    static var messageType: String { get }
    init(fields: FieldReader) throws(OffersError)
    var fields: [String: JSONValue] { get }
}

extension SwapMessageBody {
    /// The message as a JSON object, `type` included.
    public var json: JSONValue {
        var members = fields
        members["type"] = .string(Self.messageType)
        return .object(members)
    }

    /// The canonical wire bytes.
    public var encoded: [UInt8] { json.canonicalBytes }

    /// Decodes `value`, which must be an object whose `type` is this message's.
    public init(json value: JSONValue) throws(OffersError) {
        let reader = try FieldReader(value)
        guard try reader.string("type") == Self.messageType else { throw .unexpectedMessageType(expected: Self.messageType) }
        try self.init(fields: reader)
    }

    /// Parses and decodes wire bytes.
    public init(bytes: [UInt8]) throws(OffersError) {
        try self.init(json: try SwapCodec.parse(bytes))
    }
}

/// Messages that answer a request, or are one, and so carry a `request_id`.
public protocol RequestScoped {
    var requestID: String { get }
}
