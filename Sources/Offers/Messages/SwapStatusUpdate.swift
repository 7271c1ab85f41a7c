import Transport

/// Provider -> client, a push (no `request_id`) whenever a swap's status changes.
/// `sequence` rises by one per update of a swap, so a client drops stale or repeated ones
/// and knows when it missed one (then it asks with `SwapStatusRequest`).
/// With `lock_broadcast` the provider also sends the raw lock transaction (`lock_tx`, hex),
/// so the client can verify the lock and claim without waiting to see it on chain.
public struct SwapStatusUpdate: SwapMessageBody {
    public static let messageType = "SwapStatusUpdate"

    public let swapID: String
    public let sequence: UInt64
    public let status: SwapStatus
    public let lock: LockReference?
    /// The serialized lock transaction (hex), when the provider has broadcast it.
    public let lockTransactionHex: String?

    public init(swapID: String, sequence: UInt64, status: SwapStatus, lock: LockReference? = nil,
                lockTransactionHex: String? = nil) {
        self.swapID = swapID
        self.sequence = sequence
        self.status = status
        self.lock = lock
        self.lockTransactionHex = lockTransactionHex
    }

    public init(fields: FieldReader) throws(OffersError) {
        swapID = try fields.nonEmptyString("swap_id")
        sequence = try fields.uint64("sequence")
        status = try fields.rawValue("status", as: SwapStatus.self)
        lock = try LockReference.read(from: fields)
        lockTransactionHex = try fields.optionalString("lock_tx")
    }

    public var fields: [String: JSONValue] {
        var members: [String: JSONValue] = [
            "swap_id": .string(swapID),
            "sequence": .integer(sequence),
            "status": .string(status.rawValue),
        ]
        lock?.write(into: &members)
        if let lockTransactionHex { members["lock_tx"] = .string(lockTransactionHex) }
        return members
    }
}
