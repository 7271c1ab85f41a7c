import Transport

/// One way to pay a node. `type` `onchain`: a bitcoin address on `network`. `type`
/// `lightning`: the node takes Lightning payments on `network`; `address` is its pubky, the
/// identity to ask for an invoice (`InvoiceRequest`) and to check the signed `Invoice`
/// against. Both fields are filled on every entry because older clients require them on
/// each one and would refuse the whole reply otherwise; they skip types they cannot pay.
public struct Endpoint: Sendable, Hashable {
    public static let onchainType = "onchain"
    public static let lightningType = "lightning"

    public let type: String
    public let address: String
    public let network: String

    public init(type: String = onchainType, address: String, network: String) {
        self.type = type
        self.address = address
        self.network = network
    }

    /// The entry saying that `pubky` takes Lightning payments on `network`.
    public static func lightning(pubky: Pubky, network: String) -> Endpoint {
        Endpoint(type: lightningType, address: pubky.z32, network: network)
    }

    /// For a `lightning` entry, the identity to ask for an invoice; nil for other types or an
    /// address that is not a pubky.
    public var lightningPubky: Pubky? {
        guard type == Self.lightningType else { return nil }
        return try? Pubky(parsing: address)
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
