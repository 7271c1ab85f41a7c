import HTLC
import Offers
import Transport

/// The hook where the swap engines plug into the daemon. The daemon runs without them:
/// it serves contacts (EndpointsRequest), offers and quotes (when the provider is on),
/// and every control command except the swap ones, which answer `not_available` until
/// an engine is wired here. The lead wires them after merging, in the factory passed to
/// `NodeDaemon.Options.engines`:
///
///     options.engines = { services in
///         let provider = ProviderEngine(dependencies: ..., push: services.peerServer.providerPush)
///         try await provider.start()
///         return SwapEngines(provider: provider, client: ...)
///     }
///
/// with `extension ProviderEngine: ProviderSwapService {}` (its `answer(_:from:)`,
/// `receive(push:from:)` and `shutdown()` already have these shapes).
public struct SwapEngines: Sendable {
    public var provider: (any ProviderSwapService)?
    public var client: (any SwapCommandService)?
    /// The provider's onchain_to_ln engine (`SubmarineProviderEngine`), when `submarine=1`:
    /// onchain_to_ln SwapRequests and the status of its own swaps go to it.
    public var submarineProvider: (any ProviderSwapService)?

    public init(provider: (any ProviderSwapService)? = nil, client: (any SwapCommandService)? = nil,
                submarineProvider: (any ProviderSwapService)? = nil) {
        self.provider = provider
        self.client = client
        self.submarineProvider = submarineProvider
    }
}

/// Builds the engines once the daemon's services are up (store, backends, wallet, peer
/// server). A throw stops the daemon's start-up like any other failing step.
public typealias SwapEngineFactory = @Sendable (NodeServices) async throws -> SwapEngines

/// The provider engine as the daemon's peer server sees it: swap requests and status
/// requests answered, pushes (PreimagePush) taken. Offers and quotes go to the
/// `ProviderDesk` first.
public protocol ProviderSwapService: Sendable {
    /// The reply to a request from `peer`, or nil when it is not the engine's to answer.
    func answer(_ request: [UInt8], from peer: Pubky) async -> [UInt8]?
    func receive(push message: [UInt8], from peer: Pubky) async
    /// Stops driving swaps (called at shutdown, before the store closes).
    func shutdown() async
}

/// The swap commands of the control API, for the client engine (and the provider's
/// manual refund) to implement.
public protocol SwapCommandService: Sendable {
    /// Runs `command`, sending progress lines (`pay`'s stages) through `progress`, and
    /// returns the result object the CLI prints (with the fee breakdown where relevant).
    func run(_ command: SwapCommand, progress: @escaping ControlProgress) async throws(ControlError) -> JSONValue
    func shutdown() async
}

/// The swap commands, with their arguments already checked by the control API.
public enum SwapCommand: Sendable, Equatable {
    /// Pay `amountSat` to the contact (name or pubky) on-chain, through a provider if needed.
    case pay(contact: String, amountSat: Int64, options: SwapOptions = SwapOptions())
    /// Move `amountSat` of spending funds to on-chain: `address`, or a fresh wallet address.
    case swapOut(amountSat: Int64, address: String?, options: SwapOptions = SwapOptions())
    /// Move `amountSat` of savings to the spending balance: a submarine swap paying this
    /// node's own invoice.
    case swapIn(amountSat: Int64, options: SwapOptions = SwapOptions())
    /// What paying `amountSat` would cost, without paying: the route and a provider's quote
    /// (its id is what `pay --quote` commits).
    case quote(amountSat: Int64, contact: String?, options: SwapOptions = SwapOptions())
    /// The largest amount the spending balance can send.
    case max(contact: String?, options: SwapOptions)
    /// Claim a swap's lock by hand, whatever its cached status.
    case claim(swapID: String)
    /// Refund a swap's lock by hand after its timeout (provider side).
    case refund(swapID: String)

    /// The control API's name for it.
    public var name: String {
        switch self {
        case .pay: return "pay"
        case .swapOut: return "swap-out"
        case .swapIn: return "swap-in"
        case .quote: return "quote"
        case .max: return "max"
        case .claim: return "swap.claim"
        case .refund: return "swap.refund"
        }
    }
}

/// How a swap command may narrow the route: one contract type only (`--contract-type`),
/// or a quote fetched earlier by `quote` (`--quote`, `pay` only).
public struct SwapOptions: Sendable, Equatable {
    public var contractType: ContractType?
    public var quoteID: String?
    /// `--from`: which balance pays (`pay`, `quote`, `max`); nil lets the rail chooser pick
    /// (docs/ROUTING.md).
    public var source: RailSource?
    /// `--max-fee`: providers whose fees in all (routing included) exceed it are skipped.
    public var maxFeeSat: Int64?

    public init(contractType: ContractType? = nil, quoteID: String? = nil, source: RailSource? = nil,
                maxFeeSat: Int64? = nil) {
        self.contractType = contractType
        self.quoteID = quoteID
        self.source = source
        self.maxFeeSat = maxFeeSat
    }
}
