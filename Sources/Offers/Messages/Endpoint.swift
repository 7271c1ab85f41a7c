import Transport

/// One way to pay a node. `type` `onchain`: a bitcoin address on `network`. Other types
/// may appear later; a client skips the ones it cannot pay.
public struct Endpoint: Sendable, Hashable {
    public static let onchainType = "onchain"

    public let type: String
    public let address: String
    public let network: String

    public init(type: String = onchainType, address: String, network: String) {
        self.type = type
        self.address = address
        self.network = network
    }

    init(fields: FieldReader) throws(OffersError) {
        type = try fields.nonEmptyString("type", maxBytes: 64)
        address = try fields.nonEmptyString("address", maxBytes: 1_024)
        network = try fields.nonEmptyString("network", maxBytes: 32)
    }

    var json: JSONValue {
        .object(["type": .string(type), "address": .string(address), "network": .string(network)])
    }
}
