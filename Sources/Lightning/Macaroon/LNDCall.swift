/// Each LND call the simulator serves and the node makes, with the permission LND's
/// macaroon interceptor requires for it (lnd's `MainRPCServerPermissions`, and the
/// invoicesrpc, routerrpc and walletrpc sub-servers' permission maps). One table, so the simulator
/// refuses exactly what LND refuses and the node asks for exactly what it uses.
public enum LNDCall: String, Sendable, CaseIterable {
    case getInfo = "/lnrpc.Lightning/GetInfo"
    case channelBalance = "/lnrpc.Lightning/ChannelBalance"
    case listChannels = "/lnrpc.Lightning/ListChannels"
    case addInvoice = "/lnrpc.Lightning/AddInvoice"
    case lookupInvoice = "/lnrpc.Lightning/LookupInvoice"
    case decodePayReq = "/lnrpc.Lightning/DecodePayReq"
    case addHoldInvoice = "/invoicesrpc.Invoices/AddHoldInvoice"
    case settleInvoice = "/invoicesrpc.Invoices/SettleInvoice"
    case cancelInvoice = "/invoicesrpc.Invoices/CancelInvoice"
    case lookupInvoiceV2 = "/invoicesrpc.Invoices/LookupInvoiceV2"
    case subscribeSingleInvoice = "/invoicesrpc.Invoices/SubscribeSingleInvoice"
    case sendPaymentV2 = "/routerrpc.Router/SendPaymentV2"
    case trackPaymentV2 = "/routerrpc.Router/TrackPaymentV2"
    case publishTransaction = "/walletrpc.WalletKit/PublishTransaction"

    public var permission: LNDPermission {
        switch self {
        case .getInfo: return LNDPermission("info", "read")
        case .channelBalance, .listChannels, .decodePayReq, .trackPaymentV2: return LNDPermission("offchain", "read")
        case .sendPaymentV2: return LNDPermission("offchain", "write")
        case .lookupInvoice, .subscribeSingleInvoice: return LNDPermission("invoices", "read")
        // LND guards LookupInvoiceV2 with invoices:write, not read.
        case .addInvoice, .addHoldInvoice, .settleInvoice, .cancelInvoice, .lookupInvoiceV2:
            return LNDPermission("invoices", "write")
        case .publishTransaction: return LNDPermission("onchain", "write")
        }
    }

    /// The gRPC method's short name, for messages.
    public var name: String { String(rawValue.split(separator: "/").last ?? "") }

    /// What every node calls: the start-up check and status (GetInfo, ChannelBalance), what
    /// a payment may be (ListChannels: the balance above each reserve), and paying as a
    /// client (SendPaymentV2, then TrackPaymentV2 after a restart or a cut stream).
    public static let client: [LNDCall] = [.getInfo, .channelBalance, .listChannels, .sendPaymentV2, .trackPaymentV2]

    /// What a node that takes Lightning payments from its contacts (`accept_lightning`)
    /// calls on top: a plain invoice for each contact's `InvoiceRequest`.
    public static let payee: [LNDCall] = client + [.addInvoice]

    /// What a submarine (on-chain -> Lightning) provider calls to pay the client's
    /// invoice: decode it (amount, hash, payee, CLTV) before paying, pay it, and track the
    /// payment after a restart rather than send it again.
    public static let submarineProvider: [LNDCall] = [.decodePayReq, .sendPaymentV2, .trackPaymentV2]

    /// What a provider calls on top: its hold invoices, watched, looked up, settled with
    /// the claim's preimage or cancelled (reverse swaps), and the submarine calls.
    public static let provider: [LNDCall] = client + [
        .addHoldInvoice, .subscribeSingleInvoice, .lookupInvoiceV2, .settleInvoice, .cancelInvoice, .decodePayReq,
    ]

    /// What a node on an Electrum server it does not run calls on top: every transaction
    /// it broadcasts goes through LND's wallet too, so a server that swallows a claim
    /// cannot keep it from the network (docs/ELECTRUM.md, "A second way out").
    public static let secondBroadcaster: [LNDCall] = [.publishTransaction]

    /// Every call a node makes in its roles, each once: the client's, then the payee's,
    /// then the provider's, then LND's broadcast beside an untrusted Electrum server.
    public static func calls(provider: Bool, payee: Bool, broadcasts: Bool = false) -> [LNDCall] {
        var seen = Set<LNDCall>()
        return (client + (payee ? Self.payee : []) + (provider ? Self.provider + submarineProvider : [])
                + (broadcasts ? secondBroadcaster : []))
            .filter { seen.insert($0).inserted }
    }

    /// The permissions `held` lacks for `calls`, each with the calls that need it, in
    /// permission order.
    public static func missing(from held: Set<LNDPermission>, for calls: [LNDCall]) -> [(permission: LNDPermission, calls: [LNDCall])] {
        let needed = Dictionary(grouping: calls, by: \.permission)
        return needed.keys.filter { !held.contains($0) }.sorted().map { ($0, needed[$0]!) }
    }
}
