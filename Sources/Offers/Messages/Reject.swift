import Transport

/// A refusal of a request, with a code a program acts on and a reason a human reads.
public struct Reject: SwapMessageBody, RequestScoped {
    public static let messageType = "Reject"
    /// Reasons are for people; bounded so a peer cannot fill a log.
    public static let maxReasonBytes = 512

    public let requestID: String
    public let code: RejectCode
    public let reason: String

    public init(requestID: String, code: RejectCode, reason: String) {
        self.requestID = requestID
        self.code = code
        self.reason = reason
    }

    /// The Reject that answers request `requestID` which failed with `error`.
    public init(requestID: String, error: OffersError) {
        self.init(requestID: requestID, code: error.rejectCode, reason: error.description)
    }

    public init(fields: FieldReader) throws(OffersError) {
        requestID = try fields.requestID()
        code = try fields.rawValue("code", as: RejectCode.self)
        reason = try fields.string("reason")
        guard reason.utf8.count <= Self.maxReasonBytes else { throw .valueOutOfRange(field: "reason") }
    }

    public var fields: [String: JSONValue] {
        SwapCodec.fields(requestID: requestID, ["code": .string(code.rawValue), "reason": .string(reason)])
    }
}
