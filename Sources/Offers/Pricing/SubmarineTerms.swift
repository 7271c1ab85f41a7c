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
    /// 288 blocks, two days: Boltz's longest timeout for a submarine swap sized to its
    /// route (144 to 288), under Loop In's client bound (1,500). It leaves, after the lock's
    /// confirmations and `SubmarineRules.confirmationWaitBlocks`, the CLTV margin, LND's
    /// padding and the default route allowance of 160, room for a final delta of 100 at one
    /// confirmation and 99 at two: LND's 80 fits (docs/HTLC.md, "Submarine CLTV bound").
    public static let defaultTimeoutBlocks = 288

    public var feeModel: FeeModel
    public var minAmountSat: Int64
    public var maxAmountSat: Int64
    public var requiredConfirmations: Int
    public var htlcTimeoutBlocks: Int
    /// The route allowance `SubmarineRules` keeps free at SwapRequest.
    public var routeCLTVBlocks: Int
    public var routingReserve: RoutingFeeEstimate

    /// Refuses 0 confirmations (`unacceptableTerms`): see `minimumRequiredConfirmations`;
    /// and a timeout that could admit no invoice at all (`shortestTimeoutBlocks`).
    public init(feeModel: FeeModel = FeeModel(), minAmountSat: Int64 = defaultMinAmountSat,
                maxAmountSat: Int64 = defaultMaxAmountSat, requiredConfirmations: Int = 1,
                htlcTimeoutBlocks: Int = defaultTimeoutBlocks,
                routeCLTVBlocks: Int = SubmarineRules.defaultRouteCLTVBlocks,
                routingReserve: RoutingFeeEstimate = defaultRoutingReserve) throws(OffersError) {
        guard requiredConfirmations >= Self.minimumRequiredConfirmations else {
            throw .unacceptableTerms("onchain_to_ln needs at least \(Self.minimumRequiredConfirmations) confirmation, not \(requiredConfirmations)")
        }
        guard routeCLTVBlocks >= 0 else { throw .unacceptableTerms("a route allowance of \(routeCLTVBlocks) blocks") }
        let shortest = Self.shortestTimeoutBlocks(requiredConfirmations: requiredConfirmations, routeCLTVBlocks: routeCLTVBlocks)
        guard (shortest...TimelockPolicy.maximumHTLCTimeoutBlocks).contains(htlcTimeoutBlocks) else {
            throw .unacceptableTerms("htlc_timeout_blocks \(htlcTimeoutBlocks) outside \(shortest)...\(TimelockPolicy.maximumHTLCTimeoutBlocks): "
                                     + "after the lock's confirmations and their wait it must leave the CLTV margin and a route "
                                     + "of \(routeCLTVBlocks) blocks for an invoice with BOLT11's default final delta")
        }
        self.feeModel = feeModel
        self.minAmountSat = minAmountSat
        self.maxAmountSat = maxAmountSat
        self.requiredConfirmations = requiredConfirmations
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
        self.routeCLTVBlocks = routeCLTVBlocks
        self.routingReserve = routingReserve
    }

    /// BOLT11's default `min_final_cltv_expiry` (18): the shortest timeout must leave a
    /// route for an invoice that states none.
    public static let defaultFinalCLTVExpiry = 18

    /// confirmations + 12 (the confirmation wait) + 12 (the CLTV margin) + 3 (LND's final
    /// padding) + the route allowance + 18: with less, `SubmarineRules` would refuse even an
    /// invoice with the default final delta. 206 at one confirmation and the default route.
    public static func shortestTimeoutBlocks(requiredConfirmations: Int,
                                             routeCLTVBlocks: Int = SubmarineRules.defaultRouteCLTVBlocks) -> Int {
        requiredConfirmations + SubmarineRules.confirmationWaitBlocks + SubmarineRules.cltvMarginBlocks
            + SubmarineRules.finalHopPaddingBlocks + routeCLTVBlocks + defaultFinalCLTVExpiry
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
