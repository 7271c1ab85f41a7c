import Bitcoin
import Lightning
import Transport

/// One simulated node's LND REST API: routes a request to the simulator and answers in
/// LND's shapes (field names, base64 bytes, int64 strings, enum names, error bodies and
/// HTTP statuses, streams as newline-delimited `{"result": ...}` objects).
///
/// Served, each behind the node's macaroon (`Grpc-Metadata-macaroon`, hex):
///
///     GET  /v1/getinfo                          GetInfo
///     GET  /v1/balance/channels                 ChannelBalance
///     POST /v1/invoices                         AddInvoice (plain)
///     GET  /v1/invoice/{r_hash_str}             LookupInvoice (hash in hex)
///     POST /v2/invoices/hodl                    AddHoldInvoice
///     POST /v2/invoices/settle                  SettleInvoice
///     POST /v2/invoices/cancel                  CancelInvoice
///     GET  /v2/invoices/lookup?payment_hash=    LookupInvoiceV2 (hash in base64url)
///     GET  /v2/invoices/subscribe/{r_hash}      SubscribeSingleInvoice (streamed; base64url)
///     POST /v2/router/send                      SendPaymentV2 (streamed)
///     GET  /v2/router/track/{payment_hash}      TrackPaymentV2 (streamed; base64url)
///     GET  /v1/payreq/{pay_req}                 DecodePayReq
///
/// Routing comes before authentication, as in LND's gateway: an unknown path is 404
/// whatever the macaroon.
public struct LNDRESTHandler: Sendable {
    public let network: LightningNetwork
    public let node: String
    /// The node's macaroon: 32 random bytes standing in for LND's serialized macaroon.
    /// The simulator checks possession only; there are no caveats or permissions.
    public let macaroon: [UInt8]
    /// A stable stand-in for the channel the node's HTLCs arrive on (the simulator has
    /// no channels): derived from the node key, so it differs per node.
    let channelID: UInt64
    let blockHash: @Sendable () -> String
    /// Faults a test injected (`hub_ln_fault`), and the streams a restart ends.
    public let faults = LNDFaults()

    /// - Parameter blockHash: the chain tip's hash in hex, for `getinfo` (the simulator
    ///   knows only the height).
    public init(network: LightningNetwork, node: String, macaroon: [UInt8],
                blockHash: @escaping @Sendable () -> String = { "" }) throws(LightningSimError) {
        let info = try network.node(node)
        self.network = network
        self.node = node
        self.macaroon = macaroon
        self.blockHash = blockHash
        channelID = LNDMessages.channelID(for: info.identityKey)
    }

    /// Answers one request.
    public func handle(_ request: HTTPRequest) async -> HTTPServerResponse {
        let target = LNDTarget(request.target)
        guard let route = Route(segments: target.segments) else {
            return .complete(LNDRPCError(.notFound, "Not Found").unaryResponse)
        }
        guard request.method == route.method else {
            return .complete(LNDRPCError(.unimplemented, "Method Not Allowed").unaryResponse)
        }
        if let refusal = authenticate(request.headers) {
            return .complete(route.isStreaming ? refusal.streamResponse : refusal.unaryResponse)
        }
        do {
            if route.isStreaming {
                return try stream(route, target: target, body: request.body)
            }
            let result = try unary(route, target: target, body: request.body)
            return LNDReplyFraming.reply(status: .ok, body: result.canonicalBytes)
        } catch {
            return .complete(route.isStreaming ? error.streamResponse : error.unaryResponse)
        }
    }

    /// nil when the request carries this node's macaroon, else LND's refusal.
    private func authenticate(_ headers: HTTPHeaders) -> LNDRPCError? {
        let values = headers["grpc-metadata-macaroon"]
        guard values.count == 1 else {
            return values.isEmpty ? .missingMacaroon : LNDRPCError(.unknown, "expected 1 macaroon, got \(values.count)")
        }
        guard let presented = [UInt8](hex: values[0]), LNDRESTHandler.constantTimeEqual(presented, macaroon) else {
            return .macaroonMismatch
        }
        return nil
    }

    /// Compares without stopping at the first difference, so the time taken does not
    /// tell a guesser how many leading bytes were right.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    // MARK: routes

    enum Route {
        case getInfo, channelBalance, addInvoice, lookupInvoiceV1(String)
        case addHoldInvoice, settleInvoice, cancelInvoice, lookupInvoiceV2, subscribeInvoice(String)
        case sendPayment, trackPayment(String), decodePayReq(String)

        init?(segments: [String]) {
            switch segments.count {
            case 2:
                switch (segments[0], segments[1]) {
                case ("v1", "getinfo"): self = .getInfo
                case ("v1", "invoices"): self = .addInvoice
                default: return nil
                }
            case 3:
                switch (segments[0], segments[1], segments[2]) {
                case ("v1", "balance", "channels"): self = .channelBalance
                case ("v1", "invoice", let hash): self = .lookupInvoiceV1(hash)
                case ("v1", "payreq", let request): self = .decodePayReq(request)
                case ("v2", "invoices", "hodl"): self = .addHoldInvoice
                case ("v2", "invoices", "settle"): self = .settleInvoice
                case ("v2", "invoices", "cancel"): self = .cancelInvoice
                case ("v2", "invoices", "lookup"): self = .lookupInvoiceV2
                case ("v2", "router", "send"): self = .sendPayment
                default: return nil
                }
            case 4:
                switch (segments[0], segments[1], segments[2], segments[3]) {
                case ("v2", "invoices", "subscribe", let hash): self = .subscribeInvoice(hash)
                case ("v2", "router", "track", let hash): self = .trackPayment(hash)
                default: return nil
                }
            default:
                return nil
            }
        }

        var method: HTTPMethod {
            switch self {
            case .addInvoice, .addHoldInvoice, .settleInvoice, .cancelInvoice, .sendPayment: return .post
            default: return .get
            }
        }

        var isStreaming: Bool {
            switch self {
            case .subscribeInvoice, .sendPayment, .trackPayment: return true
            default: return false
            }
        }
    }
}
