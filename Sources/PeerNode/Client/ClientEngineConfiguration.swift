import Bitcoin
import HTLC
import Offers

/// The client engine's policy. Defaults are DESIGN's; regtest turns zero-conf on and tests
/// shorten the timers.
public struct ClientEngineConfiguration: Sendable {
    public var network: Network
    public var quotePolicy: QuotePolicy
    public var acceptPolicy: AcceptPolicy
    public var claimPolicy: ClaimPolicy
    /// The routing-fee limit of the payment, and the reserve kept when checking the budget.
    public var routingFee: RoutingFeeEstimate
    /// Zero-conf claims: off on mainnet, on in regtest, and never above `maxZeroConfSat`.
    public var allowsZeroConf: Bool
    public var maxZeroConfSat: Int64
    /// The fewest lock confirmations this client waits for before claiming, whatever the
    /// provider quotes (audit L-2: a provider may quote 0 or 1 on mainnet). Defaults: 2 on
    /// mainnet, 1 elsewhere. Only an allowed zero-conf claim (`allowsZeroConf`, within
    /// `maxZeroConfSat`) waits for fewer.
    public var minimumConfirmations: Int
    /// Confirmation target for the claim fee estimate.
    public var claimFeeTargetBlocks: Int
    /// Seconds after paying at which a swap still waiting for a lock is abandoned (DESIGN 6).
    /// A verified lock is waited for in blocks instead, while the claim rule holds.
    public var giveUpSeconds: UInt64
    /// How long `pay` waits for the claim's first confirmation before saying "settling".
    public var confirmationWaitMilliseconds: UInt64
    /// Claim confirmations after which a swap is `completed`.
    public var completionConfirmations: Int
    /// Per request to the provider.
    public var requestTimeoutMilliseconds: UInt64
    /// How long the Lightning node looks for a route.
    public var paymentTimeoutSeconds: UInt32
    /// Blocks the route may add on top of the invoice's final CLTV delta (the payment's
    /// `cltv_limit` is the sum), so a provider cannot lock our funds for much longer.
    public var routeCLTVAllowance: UInt32
    /// Redial backoff for the provider's status stream: first wait, then doubling up to the maximum.
    public var reconnectInitialMilliseconds: UInt64
    public var reconnectMaximumMilliseconds: UInt64
    /// Ask providers whose offer lists `musig2` for cooperative (key-path) claims: the
    /// node's `musig2` setting (on by default). Off: every claim takes the script path.
    public var cooperativeClaims: Bool
    /// When the preimage may go to the provider for a cooperative claim (`CoopRevealRule`:
    /// more than the claim cutoff plus 6 blocks before the timeout).
    public var coopRevealRule: CoopRevealRule
    /// How long the client waits for the provider's `CoopClaimSigned` before claiming
    /// through the script path. The provider answers after one store write, one settle of
    /// its hold invoice and a signature: milliseconds. 5 s leaves a slow Lightning node
    /// room; waiting longer would only put off the fallback, which the reveal rule keeps
    /// more than 12 blocks from the timeout anyway.
    public var coopClaimTimeoutMilliseconds: UInt64

    public init(network: Network, quotePolicy: QuotePolicy = QuotePolicy(), acceptPolicy: AcceptPolicy = AcceptPolicy(),
                claimPolicy: ClaimPolicy = .default, routingFee: RoutingFeeEstimate = RoutingFeeEstimate(),
                allowsZeroConf: Bool? = nil, maxZeroConfSat: Int64 = 1_000_000, minimumConfirmations: Int? = nil,
                claimFeeTargetBlocks: Int = 2,
                giveUpSeconds: UInt64 = 600, confirmationWaitMilliseconds: UInt64 = 30_000,
                completionConfirmations: Int = 1, requestTimeoutMilliseconds: UInt64 = 15_000,
                paymentTimeoutSeconds: UInt32 = 60, routeCLTVAllowance: UInt32 = 216,
                reconnectInitialMilliseconds: UInt64 = 1_000, reconnectMaximumMilliseconds: UInt64 = 30_000,
                cooperativeClaims: Bool = true, coopRevealRule: CoopRevealRule = .default,
                coopClaimTimeoutMilliseconds: UInt64 = 5_000) {
        self.network = network
        self.quotePolicy = quotePolicy
        self.acceptPolicy = acceptPolicy
        self.claimPolicy = claimPolicy
        self.routingFee = routingFee
        self.allowsZeroConf = allowsZeroConf ?? (network == .regtest)
        self.maxZeroConfSat = maxZeroConfSat
        self.minimumConfirmations = max(1, minimumConfirmations ?? Self.defaultMinimumConfirmations(network))
        self.claimFeeTargetBlocks = claimFeeTargetBlocks
        self.giveUpSeconds = giveUpSeconds
        self.confirmationWaitMilliseconds = confirmationWaitMilliseconds
        self.completionConfirmations = max(1, completionConfirmations)
        self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        self.paymentTimeoutSeconds = paymentTimeoutSeconds
        self.routeCLTVAllowance = routeCLTVAllowance
        self.reconnectInitialMilliseconds = max(1, reconnectInitialMilliseconds)
        self.reconnectMaximumMilliseconds = max(reconnectInitialMilliseconds, reconnectMaximumMilliseconds)
        self.cooperativeClaims = cooperativeClaims
        self.coopRevealRule = coopRevealRule
        self.coopClaimTimeoutMilliseconds = max(1, coopClaimTimeoutMilliseconds)
    }

    /// 2 on mainnet (a one-block reorg is not rare enough for a claim that reveals the
    /// preimage), 1 elsewhere.
    public static func defaultMinimumConfirmations(_ network: Network) -> Int {
        network == .mainnet ? 2 : 1
    }

    /// Claim confirmations before a swap is final: on mainnet as deep as the provider's own
    /// finality for a refund (6), so neither side stops watching a spend a reorg could undo.
    public static func defaultFinalityConfirmations(_ network: Network) -> Int {
        network == .mainnet ? 6 : 1
    }

    /// Lock confirmations to wait for: none when zero-conf is allowed for this lock
    /// amount, else the larger of the quote's and this client's own minimum.
    public func requiredConfirmations(quoted: Int, lockAmountSat: Int64) -> Int {
        if allowsZeroConf && lockAmountSat <= maxZeroConfSat { return 0 }
        return max(minimumConfirmations, quoted)
    }
}
