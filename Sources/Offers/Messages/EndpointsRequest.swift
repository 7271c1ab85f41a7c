import Transport

/// Any node -> a contact: where can I pay you? Answered by `Endpoints`.
public struct EndpointsRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "EndpointsRequest"

    public let requestID: String

    public init(requestID: String) {
        self.requestID = requestID
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
    }

    public var fields: [String: JSONValue] { SwapCodec.fields(requestID: requestID, [:]) }
}
