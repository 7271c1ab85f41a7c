import Transport

/// Any swap/1 message, decoded by its `type`. Offers, quotes and accepts stay `Signed`,
/// so what the provider signed is never lost on the way.
public enum SwapMessage: Sendable, Equatable {
    case offerRequest(OfferRequest)
    case offer(Signed<Offer>)
    case quoteRequest(QuoteRequest)
    case quote(Signed<Quote>)
    case swapRequest(SwapRequest)
    case swapAccept(Signed<SwapAccept>)
    /// A `SwapRequest` with `"direction": "onchain_to_ln"`.
    case submarineSwapRequest(SubmarineSwapRequest)
    /// A `SwapAccept` with `"direction": "onchain_to_ln"`.
    case submarineSwapAccept(Signed<SubmarineSwapAccept>)
    case swapStatusRequest(SwapStatusRequest)
    case swapStatusSnapshot(SwapStatusSnapshot)
    case swapStatusUpdate(SwapStatusUpdate)
    case reject(Reject)
    case preimagePush(PreimagePush)
    case endpointsRequest(EndpointsRequest)
    case endpoints(Endpoints)
    case invoiceRequest(ContactInvoiceRequest)
    case invoice(Signed<ContactInvoice>)
    case coopClaimRequest(CoopClaimRequest)
    case coopClaimSigned(CoopClaimSigned)
    case coopRefundRequest(CoopRefundRequest)
    case coopRefundOffer(CoopRefundOffer)
    case swapListRequest(SwapListRequest)
    case swapList(SwapList)

    /// Every `type` this node reads.
    public static let knownTypes: [String] = [
        OfferRequest.messageType, Offer.messageType, QuoteRequest.messageType, Quote.messageType,
        SwapRequest.messageType, SwapAccept.messageType, SwapStatusRequest.messageType,
        SwapStatusSnapshot.messageType, SwapStatusUpdate.messageType, Reject.messageType,
        PreimagePush.messageType, EndpointsRequest.messageType, Endpoints.messageType,
        ContactInvoiceRequest.messageType, ContactInvoice.messageType, CoopClaimRequest.messageType,
        CoopClaimSigned.messageType, CoopRefundRequest.messageType, CoopRefundOffer.messageType,
        SwapListRequest.messageType, SwapList.messageType,
    ]

    public init(bytes: [UInt8]) throws(OffersError) {
        try self.init(json: try SwapCodec.parse(bytes))
    }

    public init(json value: JSONValue) throws(OffersError) {
        let type = try FieldReader(value).string("type")
        switch type {
        case OfferRequest.messageType: self = .offerRequest(try OfferRequest(json: value))
        case Offer.messageType: self = .offer(try Signed(json: value))
        case QuoteRequest.messageType: self = .quoteRequest(try QuoteRequest(json: value))
        case Quote.messageType: self = .quote(try Signed(json: value))
        case SwapRequest.messageType:
            self = try Self.isSubmarine(value) ? .submarineSwapRequest(try SubmarineSwapRequest(json: value))
                : .swapRequest(try SwapRequest(json: value))
        case SwapAccept.messageType:
            self = try Self.isSubmarine(value) ? .submarineSwapAccept(try Signed(json: value))
                : .swapAccept(try Signed(json: value))
        case SwapStatusRequest.messageType: self = .swapStatusRequest(try SwapStatusRequest(json: value))
        case SwapStatusSnapshot.messageType: self = .swapStatusSnapshot(try SwapStatusSnapshot(json: value))
        case SwapStatusUpdate.messageType: self = .swapStatusUpdate(try SwapStatusUpdate(json: value))
        case Reject.messageType: self = .reject(try Reject(json: value))
        case PreimagePush.messageType: self = .preimagePush(try PreimagePush(json: value))
        case EndpointsRequest.messageType: self = .endpointsRequest(try EndpointsRequest(json: value))
        case Endpoints.messageType: self = .endpoints(try Endpoints(json: value))
        case ContactInvoiceRequest.messageType: self = .invoiceRequest(try ContactInvoiceRequest(json: value))
        case ContactInvoice.messageType: self = .invoice(try Signed(json: value))
        case CoopClaimRequest.messageType: self = .coopClaimRequest(try CoopClaimRequest(json: value))
        case CoopClaimSigned.messageType: self = .coopClaimSigned(try CoopClaimSigned(json: value))
        case CoopRefundRequest.messageType: self = .coopRefundRequest(try CoopRefundRequest(json: value))
        case CoopRefundOffer.messageType: self = .coopRefundOffer(try CoopRefundOffer(json: value))
        case SwapListRequest.messageType: self = .swapListRequest(try SwapListRequest(json: value))
        case SwapList.messageType: self = .swapList(try SwapList(json: value))
        default: throw .unknownMessageType
        }
    }

    /// Whether a SwapRequest or SwapAccept is of the `onchain_to_ln` direction. Anything
    /// else (absent, `ln_to_onchain`, or a direction we do not know, which the reverse
    /// decoder then refuses) goes to the reverse type.
    private static func isSubmarine(_ value: JSONValue) throws(OffersError) -> Bool {
        let fields = try FieldReader(value)
        return fields.members["direction"]?.stringValue == SwapDirection.onchainToLightning.rawValue
    }

    public var json: JSONValue {
        switch self {
        case .offerRequest(let message): return message.json
        case .offer(let message): return message.json
        case .quoteRequest(let message): return message.json
        case .quote(let message): return message.json
        case .swapRequest(let message): return message.json
        case .swapAccept(let message): return message.json
        case .submarineSwapRequest(let message): return message.json
        case .submarineSwapAccept(let message): return message.json
        case .swapStatusRequest(let message): return message.json
        case .swapStatusSnapshot(let message): return message.json
        case .swapStatusUpdate(let message): return message.json
        case .reject(let message): return message.json
        case .preimagePush(let message): return message.json
        case .endpointsRequest(let message): return message.json
        case .endpoints(let message): return message.json
        case .invoiceRequest(let message): return message.json
        case .invoice(let message): return message.json
        case .coopClaimRequest(let message): return message.json
        case .coopClaimSigned(let message): return message.json
        case .coopRefundRequest(let message): return message.json
        case .coopRefundOffer(let message): return message.json
        case .swapListRequest(let message): return message.json
        case .swapList(let message): return message.json
        }
    }

    /// The canonical wire bytes.
    public var encoded: [UInt8] { json.canonicalBytes }

    /// The `request_id`, for requests and replies; nil for pushes.
    public var requestID: String? {
        switch self {
        case .offerRequest(let message): return message.requestID
        case .offer(let message): return message.body.requestID
        case .quoteRequest(let message): return message.requestID
        case .quote(let message): return message.body.requestID
        case .swapRequest(let message): return message.requestID
        case .swapAccept(let message): return message.body.requestID
        case .submarineSwapRequest(let message): return message.requestID
        case .submarineSwapAccept(let message): return message.body.requestID
        case .swapStatusRequest(let message): return message.requestID
        case .swapStatusSnapshot(let message): return message.requestID
        case .reject(let message): return message.requestID
        case .endpointsRequest(let message): return message.requestID
        case .endpoints(let message): return message.requestID
        case .invoiceRequest(let message): return message.requestID
        case .invoice(let message): return message.body.requestID
        case .coopClaimRequest(let message): return message.requestID
        case .coopClaimSigned(let message): return message.requestID
        case .coopRefundRequest(let message): return message.requestID
        case .swapListRequest(let message): return message.requestID
        case .swapList(let message): return message.requestID
        case .swapStatusUpdate, .preimagePush, .coopRefundOffer: return nil
        }
    }
}
