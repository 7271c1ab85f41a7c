import Transport

/// Provider -> client, the reply to `SwapStatusRequest`: the swap's status now, and its
/// lock once there is one.
public struct SwapStatusSnapshot: SwapMessageBody, RequestScoped {
    public static let messageType = "SwapStatusSnapshot"

    public let requestID: String
    public let swapID: String
    public let status: SwapStatus
    public let lock: LockReference?
    public let timeoutHeight: UInt32

    public init(requestID: String, swapID: String, status: SwapStatus, lock: LockReference? = nil, timeoutHeight: UInt32) {
        self.requestID = requestID
        self.swapID = swapID
        self.status = status
        self.lock = lock
        self.timeoutHeight = timeoutHeight
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        swapID = try fields.nonEmptyString("swap_id")
        status = try fields.rawValue("status", as: SwapStatus.self)
        lock = try LockReference.read(from: fields)
        timeoutHeight = try fields.uint32("timeout_height")
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "swap_id": .string(swapID),
            "status": .string(status.rawValue),
            "timeout_height": .integer(timeoutHeight),
        ]
        lock?.write(into: &members)
        return SwapCodec.fields(requestID: requestID, members)
    }
}
