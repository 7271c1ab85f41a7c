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
    /// node's `cltv_expiry_delta`. It lengthens the payer's outgoing HTLC (the route's
    /// `total_time_lock`), not the one the payee holds: each hop takes its delta off.
    public var routeCLTVDelta: UInt32
    /// LND's `routing.BlockPadding` (3): the payer adds it to the final CLTV delta so
    /// that the payee does not reject an HTLC for a few blocks mined while it travels.
    /// The HTLC reaching the payee expires at `payer's tip + final delta + blockPadding`.
    public var blockPadding: UInt32
    /// The largest total time lock a payment may use: LND's `--max-cltv-expiry`
    /// default (2016). A payment's `cltv_limit` of 0 means this value.
    public var maxCLTVExpiry: UInt32
    /// Blocks before an accepted hold-invoice HTLC's expiry at which the payee cancels
    /// it: LND's `invoices.holdexpirydelta`, whose default is
    /// `DefaultIncomingBroadcastDelta (10) + 2 = 12`. LND cancels once
    /// `height + delta >= expiry_height`, before the channel would go to chain.
    public var holdExpiryDelta: UInt32

    public init(baseFeeMsat: UInt64 = 1_000, feeRatePPM: UInt64 = 100, routeCLTVDelta: UInt32 = 40,
                maxCLTVExpiry: UInt32 = 2016, holdExpiryDelta: UInt32 = 12, blockPadding: UInt32 = 3) {
        self.baseFeeMsat = baseFeeMsat
        self.blockPadding = blockPadding
        self.feeRatePPM = feeRatePPM
        self.routeCLTVDelta = routeCLTVDelta
        self.maxCLTVExpiry = maxCLTVExpiry
        self.holdExpiryDelta = holdExpiryDelta
    }

    /// Base 1 sat + 100 ppm, 40 blocks of route, LND's 2016, 12 and 3.
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

    /// The CLTV delta of the whole route for an invoice asking `finalCLTVDelta`: what
    /// the payer's first HTLC adds to its tip (`total_time_lock` − tip), and what LND
    /// holds against a payment's `cltv_limit`.
    public func totalCLTVDelta(finalCLTVDelta: UInt64) -> UInt64 {
        finalCLTVDelta + UInt64(blockPadding) + UInt64(routeCLTVDelta)
    }

    /// The expiry height of the HTLC the payee receives from a payer at `tip`.
    public func finalHTLCExpiry(tip: Int, finalCLTVDelta: UInt64) -> Int {
        tip + Int(finalCLTVDelta) + Int(blockPadding)
    }
}
