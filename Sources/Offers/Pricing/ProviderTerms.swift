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
    /// The highest fee rate the node ever estimates (`fee_cap_sat_vb`'s default). 100 sat/vB,
    /// not more: every lock must be able to pay its refund at this rate (audit H-4), so the
    /// cap sets the smallest swap; at 500 sat/vB that was 72,330 sat.
    public static let defaultRefundFeeCap = try! FeeRate(satPerKvB: 100_000)

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
    /// The rate the provider can always pay for a refund (its fee cap). A lock must hold
    /// that refund and still leave a refund output above dust.
    public var refundFeeCap: FeeRate
    /// Terms for `onchain_to_ln` (submarine) swaps; nil when the provider runs only
    /// `ln_to_onchain`, as every provider did before.
    public var submarine: SubmarineTerms?
    /// The submarine direction's `onchain_fee_sat`: the provider's claim.
    public var submarineFee: SubmarineFeeEstimate

    public init(network: Network, feeModel: FeeModel = FeeModel(), minAmountSat: Int64 = defaultMinAmountSat,
                maxAmountSat: Int64 = defaultMaxAmountSat, requiredConfirmations: Int = defaultRequiredConfirmations,
                htlcTimeoutBlocks: Int = TimelockPolicy.defaultHTLCTimeoutBlocks,
                offerLifetimeSeconds: UInt64 = defaultOfferLifetimeSeconds,
                quoteLifetimeSeconds: UInt64 = defaultQuoteLifetimeSeconds,
                contractTypes: [ContractType] = ContractType.allCases, extraFeatures: [String] = [OfferFeature.preimagePush],
                safetyPercent: Int64 = OnchainFeeEstimate.defaultSafetyPercent,
                refundFeeCap: FeeRate = defaultRefundFeeCap, submarine: SubmarineTerms? = nil) {
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
        self.refundFeeCap = refundFeeCap
        self.submarine = submarine
        submarineFee = SubmarineFeeEstimate(contractTypes: contractTypes, safetyPercent: safetyPercent)
    }

    /// The smallest lock whose refund (the largest offered contract's, to a P2TR wallet
    /// address) at `refundFeeCap` leaves an output above dust (audit H-4). A smaller lock
    /// could not be refunded at a rate the provider can always pay, and the client could
    /// wait for the HTLC to be cancelled and claim for free. Escalation near the deadline
    /// may still pay more, up to all of the lock but dust.
    public var smallestRefundableLockSat: Int64 {
        refundFeeCap.fee(forVirtualSize: onchainFee.refundVirtualSize) + DustLimit.threshold(for: .p2tr)
    }

    /// What the provider quotes and advertises as its minimum: the configured one, raised
    /// to the smallest refundable lock.
    public var effectiveMinAmountSat: Int64 { max(minAmountSat, smallestRefundableLockSat) }

    public var features: [String] { contractTypes.map(\.rawValue) + extraFeatures }
}
