import Transport

/// Any node -> a contact: "the swaps of `direction` you hold with me" (docs/SWAP1.md,
/// docs/RECOVERY.md). A node that lost its database asks its contacts for what it no
/// longer has: a client for the accepts its providers signed, a provider for the swaps its
/// clients made. The answer covers the swaps the answerer holds with the pubky the Noise
/// handshake authenticated, so a node only ever learns its own swaps, and the asker
/// trusts nothing in it that its seed, its own signatures and the chain do not confirm.
/// Answered by `SwapList`; `offset` pages through it.
public struct SwapListRequest: SwapMessageBody, RequestScoped {
    public static let messageType = "SwapListRequest"
    /// The highest `offset` read: a contact holding more swaps with one node than this is
    /// asked with `recover --contract` instead.
    public static let maximumOffset: Int64 = 100_000

    public let requestID: String
    /// Only `onchain_to_ln` is answered today: a reverse swap's unspent lock is the
    /// provider's to refund and its claim the client's, each from its own seed.
    public let direction: SwapDirection
    /// How many of the listed swaps to skip (newest first).
    public let offset: Int

    public init(requestID: String, direction: SwapDirection = .onchainToLightning, offset: Int = 0) {
        self.requestID = requestID
        self.direction = direction
        self.offset = offset
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        guard fields.has("direction") else { throw .missingField("direction") }
        direction = try SwapDirection.read(fields)
        offset = Int(try fields.optionalInt64("offset", in: 0...Self.maximumOffset) ?? 0)
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, ["direction": .string(direction.rawValue), "offset": .integer(Int64(offset))])
    }
}
