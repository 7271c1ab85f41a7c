import HTLC

/// A provider's configured terms for `onchain_to_ln` (submarine) swaps: it pays the
/// client's invoice from its Lightning balance once the client's lock has
/// `requiredConfirmations`, then claims the lock. Amounts are invoice amounts.
public struct SubmarineTerms: Sendable, Hashable {
    public static let defaultMinAmountSat: Int64 = 10_000
    public static let defaultMaxAmountSat: Int64 = 1_000_000
    /// Never 0: Bitcoin Core v31 relays full RBF, so a client could replace an unconfirmed
    /// lock after being paid.
    public static let minimumRequiredConfirmations = 1
    /// What the provider keeps for its own routing fee when it sizes the offer's maximum
    /// from its Lightning balance (`RoutingFeeEstimate`'s default: 1 sat + 1000 ppm).
    public static let defaultRoutingReserve = RoutingFeeEstimate()

    public var feeModel: FeeModel
    public var minAmountSat: Int64
    public var maxAmountSat: Int64
    public var requiredConfirmations: Int
    public var htlcTimeoutBlocks: Int
    public var routingReserve: RoutingFeeEstimate

    /// Refuses 0 confirmations (`unacceptableTerms`): see `minimumRequiredConfirmations`.
    public init(feeModel: FeeModel = FeeModel(), minAmountSat: Int64 = defaultMinAmountSat,
                maxAmountSat: Int64 = defaultMaxAmountSat, requiredConfirmations: Int = 1,
                htlcTimeoutBlocks: Int = TimelockPolicy.defaultHTLCTimeoutBlocks,
                routingReserve: RoutingFeeEstimate = defaultRoutingReserve) throws(OffersError) {
        guard requiredConfirmations >= Self.minimumRequiredConfirmations else {
            throw .unacceptableTerms("onchain_to_ln needs at least \(Self.minimumRequiredConfirmations) confirmation, not \(requiredConfirmations)")
        }
        let shortest = Self.shortestTimeoutBlocks(requiredConfirmations: requiredConfirmations)
        guard (shortest...TimelockPolicy.maximumHTLCTimeoutBlocks).contains(htlcTimeoutBlocks) else {
            throw .unacceptableTerms("htlc_timeout_blocks \(htlcTimeoutBlocks) outside \(shortest)...\(TimelockPolicy.maximumHTLCTimeoutBlocks): "
                                     + "after the lock's confirmations it must leave the CLTV margin and a route for an invoice "
                                     + "with BOLT11's default final delta")
        }
        self.feeModel = feeModel
        self.minAmountSat = minAmountSat
        self.maxAmountSat = maxAmountSat
        self.requiredConfirmations = requiredConfirmations
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
        self.routingReserve = routingReserve
    }

    /// BOLT11's default `min_final_cltv_expiry` (18): the shortest timeout must leave a
    /// route for an invoice that states none.
    public static let defaultFinalCLTVExpiry = 18

    /// confirmations + 12 (the CLTV margin) + 3 (LND's final padding) + 18: with less, no
    /// invoice with the default final delta could be paid at the first possible height.
    public static func shortestTimeoutBlocks(requiredConfirmations: Int) -> Int {
        requiredConfirmations + SubmarineRules.cltvMarginBlocks + SubmarineRules.finalHopPaddingBlocks + defaultFinalCLTVExpiry
    }

    /// The largest invoice the provider can pay from `outboundSat` of Lightning balance with
    /// its routing reserve on top: the largest a with a + base + ceil(a × ppm / 1e6) <= outbound.
    public func payableAmount(outboundSat: Int64) -> Int64 {
        let room = outboundSat - routingReserve.baseSat
        guard room > 0 else { return 0 }
        // a + ceil(a × ppm / 1e6) <= room  <=>  a × (1e6 + ppm) <= room × 1e6.
        let divisor = Amounts.million + routingReserve.feePPM
        return min(divisor.dividingFullWidth(room.multipliedFullWidth(by: Amounts.million)).quotient, Amounts.maximumSat)
    }
}
