/// The simulated network's rules for every payment: what the route costs, how many
/// blocks it adds to the HTLC, and when a held HTLC is given up.
///
/// The simulator has no channel graph: every payment crosses one notional routing node
/// between payer and payee. Its policy is fixed and deterministic so that tests and
/// swap engines can predict fees and expiry heights exactly.
public struct RoutingPolicy: Sendable, Hashable {
    /// The routing node's base fee. LND's default `bitcoin.basefee` is 1000 msat too.
    public var baseFeeMsat: UInt64
    /// The routing node's proportional fee, parts per million of the amount forwarded.
    public var feeRatePPM: UInt64
    /// Blocks the route adds on top of the invoice's final CLTV delta: the routing
    /// node's `cltv_expiry_delta`. The HTLC reaching the payee therefore expires at
    /// `tip + final delta + routeCLTVDelta`.
    public var routeCLTVDelta: UInt32
    /// The largest total time lock a payment may use: LND's `--max-cltv-expiry`
    /// default (2016). A payment's `cltv_limit` of 0 means this value.
    public var maxCLTVExpiry: UInt32
    /// Blocks before an accepted hold-invoice HTLC's expiry at which the payee cancels
    /// it: LND's `invoices.holdexpirydelta`, whose default is
    /// `DefaultIncomingBroadcastDelta (10) + 2 = 12`. LND cancels once
    /// `height + delta >= expiry_height`, before the channel would go to chain.
    public var holdExpiryDelta: UInt32

    public init(baseFeeMsat: UInt64 = 1_000, feeRatePPM: UInt64 = 100, routeCLTVDelta: UInt32 = 40,
                maxCLTVExpiry: UInt32 = 2016, holdExpiryDelta: UInt32 = 12) {
        self.baseFeeMsat = baseFeeMsat
        self.feeRatePPM = feeRatePPM
        self.routeCLTVDelta = routeCLTVDelta
        self.maxCLTVExpiry = maxCLTVExpiry
        self.holdExpiryDelta = holdExpiryDelta
    }

    /// Base 1 sat + 100 ppm, 40 blocks of route, LND's 2016 and 12.
    public static let standard = RoutingPolicy()

    /// The routing fee for delivering `amountMsat`: `base + floor(amount × ppm / 10^6)`,
    /// the same integer formula LND applies to a channel policy. Saturates rather than
    /// wrapping; amounts are bounded by 21 million BTC, so it never does in practice.
    public func feeMsat(forAmount amountMsat: UInt64) -> UInt64 {
        // amount × ppm overflows only above ~1.8e13 sat at 1e6 ppm; split to stay exact.
        let whole = (amountMsat / 1_000_000) * feeRatePPM
        let rest = (amountMsat % 1_000_000) * feeRatePPM / 1_000_000
        let (proportional, overflow) = whole.addingReportingOverflow(rest)
        guard !overflow else { return .max }
        let (fee, overflow2) = baseFeeMsat.addingReportingOverflow(proportional)
        return overflow2 ? .max : fee
    }

    /// The CLTV delta of the whole route for an invoice asking `finalCLTVDelta`.
    public func totalCLTVDelta(finalCLTVDelta: UInt64) -> UInt64 {
        finalCLTVDelta + UInt64(routeCLTVDelta)
    }
}
