import Transport

/// The reply to `EndpointsRequest`: the ways the node can be paid, preferred first.
public struct Endpoints: SwapMessageBody, RequestScoped {
    public static let messageType = "Endpoints"

    public let requestID: String
    public let endpoints: [Endpoint]

    public init(requestID: String, endpoints: [Endpoint]) {
        self.requestID = requestID
        self.endpoints = endpoints
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        var endpoints: [Endpoint] = []
        for entry in try fields.objectArray("endpoints", maxCount: 16) {
            endpoints.append(try Endpoint(fields: entry))
        }
        self.endpoints = endpoints
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, ["endpoints": .array(endpoints.map(\.json))])
    }
}
