import Bitcoin
import HTLC

/// A provider's configured terms (the daemon's config file fills them in).
public struct ProviderTerms: Sendable, Hashable {
    public static let defaultMinAmountSat: Int64 = 10_000
    public static let defaultMaxAmountSat: Int64 = 1_000_000
    /// An offer is cached by clients for its lifetime; short enough that liquidity and fee
    /// rates it was priced from are still roughly true.
    public static let defaultOfferLifetimeSeconds: UInt64 = 600
    public static let defaultQuoteLifetimeSeconds: UInt64 = 300
    public static let defaultRequiredConfirmations = 1

    public var network: Network
    public var feeModel: FeeModel
    public var minAmountSat: Int64
    public var maxAmountSat: Int64
    public var requiredConfirmations: Int
    public var htlcTimeoutBlocks: Int
    public var offerLifetimeSeconds: UInt64
    public var quoteLifetimeSeconds: UInt64
    public var contractTypes: [ContractType]
    public var extraFeatures: [String]
    public var onchainFee: OnchainFeeEstimate

    public init(network: Network, feeModel: FeeModel = FeeModel(), minAmountSat: Int64 = defaultMinAmountSat,
                maxAmountSat: Int64 = defaultMaxAmountSat, requiredConfirmations: Int = defaultRequiredConfirmations,
                htlcTimeoutBlocks: Int = TimelockPolicy.defaultHTLCTimeoutBlocks,
                offerLifetimeSeconds: UInt64 = defaultOfferLifetimeSeconds,
                quoteLifetimeSeconds: UInt64 = defaultQuoteLifetimeSeconds,
                contractTypes: [ContractType] = ContractType.allCases, extraFeatures: [String] = [OfferFeature.preimagePush],
                safetyPercent: Int64 = OnchainFeeEstimate.defaultSafetyPercent) {
        self.network = network
        self.feeModel = feeModel
        self.minAmountSat = minAmountSat
        self.maxAmountSat = maxAmountSat
        self.requiredConfirmations = requiredConfirmations
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
        self.offerLifetimeSeconds = offerLifetimeSeconds
        self.quoteLifetimeSeconds = quoteLifetimeSeconds
        self.contractTypes = contractTypes
        self.extraFeatures = extraFeatures
        onchainFee = OnchainFeeEstimate(contractTypes: contractTypes, safetyPercent: safetyPercent)
    }

    public var features: [String] { contractTypes.map(\.rawValue) + extraFeatures }
}
