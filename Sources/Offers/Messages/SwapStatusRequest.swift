import Transport

/// Client -> provider: where does swap `swap_id` stand? Answered by a
/// `SwapStatusSnapshot`, or `not_found`.
public struct SwapStatusRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "SwapStatusRequest"

    public let requestID: String
    public let swapID: String

    public init(requestID: String, swapID: String) {
        self.requestID = requestID
        self.swapID = swapID
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        swapID = try fields.nonEmptyString("swap_id")
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, ["swap_id": .string(swapID)])
    }
}
