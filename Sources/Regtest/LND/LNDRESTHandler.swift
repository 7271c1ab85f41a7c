import Bitcoin
import Lightning
import Transport

/// One simulated node's LND REST API: routes a request to the simulator and answers in
/// LND's shapes (field names, base64 bytes, int64 strings, enum names, error bodies and
/// HTTP statuses, streams as newline-delimited `{"result": ...}` objects).
///
/// Served, each behind a macaroon of the node (`Grpc-Metadata-macaroon`, hex) that
/// carries the call's permission (`LNDCall`, checked by `LNDMacaroonAuthority`):
///
///     GET  /v1/getinfo                          GetInfo
///     GET  /v1/balance/channels                 ChannelBalance
///     GET  /v1/channels                         ListChannels (the node's one channel)
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
///     POST /v2/wallet/tx                        PublishTransaction (WalletKit)
///
/// Routing comes before authentication, as in LND's gateway: an unknown path is 404
/// whatever the macaroon.
public struct LNDRESTHandler: Sendable {
    public let network: LightningNetwork
    public let node: String
    /// The node's root key and its admin, invoice and readonly macaroons.
    public let macaroons: LNDMacaroonAuthority
    /// The node's `admin.macaroon`, serialized as LND writes it.
    public var macaroon: [UInt8] { macaroons.admin.encoded }
    /// A stable stand-in for the channel the node's HTLCs arrive on (the simulator has
    /// no channels): derived from the node key, so it differs per node.
    let channelID: UInt64
    /// The chain's best block (height, hash in hex) as the node's `getinfo` reports it;
    /// nil: the simulator's height and no hash.
    let bestBlock: @Sendable () -> (height: Int, hash: String)?
    /// Where `PublishTransaction` sends a transaction (the hub's mempool), refusing as LND
    /// does; by default there is no chain and every publish is refused.
    let publish: @Sendable (Transaction) throws(LNDRPCError) -> Void
    /// Faults a test injected (`hub_ln_fault`), and the streams a restart ends.
    public let faults = LNDFaults()

    /// - Parameter bestBlock: the chain's tip, height and hash in hex, read together for
    ///   `getinfo` as LND reads its best block (the simulator knows only the height).
    public init(network: LightningNetwork, node: String, macaroons: LNDMacaroonAuthority = LNDMacaroonAuthority(),
                bestBlock: @escaping @Sendable () -> (height: Int, hash: String)? = { nil },
                publish: @escaping @Sendable (Transaction) throws(LNDRPCError) -> Void = LNDRESTHandler.noChain)
        throws(LightningSimError) {
        let info = try network.node(node)
        self.network = network
        self.node = node
        self.macaroons = macaroons
        self.bestBlock = bestBlock
        self.publish = publish
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
        if let refusal = macaroons.check(request.headers, for: route.call) {
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

    /// The publish of a node with no chain behind it.
    public static let noChain: @Sendable (Transaction) throws(LNDRPCError) -> Void = { _ throws(LNDRPCError) in
        throw LNDRPCError(.unavailable, "the simulated node has no chain backend to publish to")
    }

    // MARK: routes

    enum Route {
        case getInfo, channelBalance, listChannels, addInvoice, lookupInvoiceV1(String)
        case addHoldInvoice, settleInvoice, cancelInvoice, lookupInvoiceV2, subscribeInvoice(String)
        case sendPayment, trackPayment(String), decodePayReq(String), publishTransaction

        init?(segments: [String]) {
            switch segments.count {
            case 2:
                switch (segments[0], segments[1]) {
                case ("v1", "getinfo"): self = .getInfo
                case ("v1", "invoices"): self = .addInvoice
                case ("v1", "channels"): self = .listChannels
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
                case ("v2", "wallet", "tx"): self = .publishTransaction
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

        /// The gRPC call behind the REST path, whose permission the macaroon needs.
        var call: LNDCall {
            switch self {
            case .getInfo: return .getInfo
            case .channelBalance: return .channelBalance
            case .listChannels: return .listChannels
            case .addInvoice: return .addInvoice
            case .lookupInvoiceV1: return .lookupInvoice
            case .addHoldInvoice: return .addHoldInvoice
            case .settleInvoice: return .settleInvoice
            case .cancelInvoice: return .cancelInvoice
            case .lookupInvoiceV2: return .lookupInvoiceV2
            case .subscribeInvoice: return .subscribeSingleInvoice
            case .sendPayment: return .sendPaymentV2
            case .trackPayment: return .trackPaymentV2
            case .decodePayReq: return .decodePayReq
            case .publishTransaction: return .publishTransaction
            }
        }

        var method: HTTPMethod {
            switch self {
            case .addInvoice, .addHoldInvoice, .settleInvoice, .cancelInvoice, .sendPayment, .publishTransaction: return .post
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
