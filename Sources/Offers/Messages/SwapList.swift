import Transport

/// The reply to `SwapListRequest`: a page of the swaps the answerer holds with the asker,
/// newest first, and how many there are in all (`total`), so the asker asks again from
/// `offset` + the entries received until it has them all. A page holds at most
/// `maximumEntries` entries and fits one frame (`maximumEncodedBytes`).
public struct SwapList: SwapMessageBody, RequestScoped {
    public static let messageType = "SwapList"
    public static let maximumEntries = 16
    /// What the answerer puts in one page at most: a frame carries 65,519 bytes of
    /// plaintext (docs/TRANSPORT.md), and the envelope needs a few hundred.
    public static let maximumEncodedBytes = 60_000

    public let requestID: String
    public let direction: SwapDirection
    /// The request's offset, echoed.
    public let offset: Int
    public let total: Int
    public let swaps: [SwapListEntry]

    public init(requestID: String, direction: SwapDirection = .onchainToLightning, offset: Int, total: Int,
                swaps: [SwapListEntry]) {
        self.requestID = requestID
        self.direction = direction
        self.offset = offset
        self.total = total
        self.swaps = swaps
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        guard fields.has("direction") else { throw .missingField("direction") }
        direction = try SwapDirection.read(fields)
        guard direction == .onchainToLightning else { throw .unsupportedDirection }
        offset = try fields.int("offset", in: 0...Int(SwapListRequest.maximumOffset))
        total = try fields.int("total", in: 0...Int(Int32.max))
        var swaps: [SwapListEntry] = []
        for entry in try fields.objectArray("swaps", maxCount: Self.maximumEntries) {
            swaps.append(try SwapListEntry(fields: entry))
        }
        self.swaps = swaps
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, [
            "direction": .string(direction.rawValue), "offset": .integer(Int64(offset)), "total": .integer(Int64(total)),
            "swaps": .array(swaps.map(\.json)),
        ])
    }
}
