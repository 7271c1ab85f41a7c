import Transport

/// Provider -> client, a push (`onchain_to_ln`, both sides offering `musig2`): "I cannot
/// pay your invoice; ask me for a cooperative refund". Sent once the provider's payment is
/// tracked to a final failure, and again at each block until the client's refund is seen,
/// so a client that was not connected hears it later. It proves nothing and moves no
/// money: the client answers by starting a refund round (`CoopRefundRequest`), and the
/// provider decides again when it is asked.
public struct CoopRefundOffer: SwapMessageBody {
    public static let messageType = "CoopRefundOffer"

    /// The provider's swap id (the accept's).
    public let swapID: String

    public init(swapID: String) {
        self.swapID = swapID
    }

    public init(fields: FieldReader) throws(OffersError) {
        swapID = try fields.nonEmptyString("swap_id")
    }

    public var fields: [String: JSONValue] { ["swap_id": .string(swapID)] }
}
