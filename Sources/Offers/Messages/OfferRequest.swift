import Transport

/// Client -> anyone: "do you run a provider, and on what terms?"
public struct OfferRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "OfferRequest"

    public let requestID: String
    public let protocolVersion: Int64
    /// The network the client runs on; a provider on another one answers `not_found`.
    /// Optional: the client checks the offer's `network` anyway.
    public let network: String?

    public init(requestID: String, protocolVersion: Int64 = ProtocolVersion.current, network: String? = nil) {
        self.requestID = requestID
        self.protocolVersion = protocolVersion
        self.network = network
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        protocolVersion = try fields.int64("protocol_version", in: 0...Int64(UInt32.max))
        network = try fields.optionalString("network")
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = ["protocol_version": .integer(protocolVersion)]
        if let network { members["network"] = .string(network) }
        return SwapCodec.fields(requestID: requestID, members)
    }
}
