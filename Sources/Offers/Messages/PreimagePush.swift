import Bitcoin
import Transport

/// Client -> provider, a push once the claim is broadcast: the preimage, so the provider
/// can settle without waiting to see the claim's witness.
public struct PreimagePush: SwapMessageBody {
    public static let messageType = "PreimagePush"

    public let swapID: String
    public let preimage: [UInt8]

    public init(swapID: String, preimage: [UInt8]) {
        self.swapID = swapID
        self.preimage = preimage
    }

    public init(fields: FieldReader) throws(OffersError) {
        swapID = try fields.nonEmptyString("swap_id")
        preimage = try fields.hex("preimage", byteCount: 32)
    }

    public var fields: [String: JSONValue] {
        ["swap_id": .string(swapID), "preimage": .string(preimage.hex)]
    }
}
