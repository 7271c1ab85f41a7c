import Bitcoin
import HTLC

/// The provider's checks of an `onchain_to_ln` SwapRequest's invoice, and the CLTV bound
/// it pays that invoice under. Pure: the caller decodes the invoice (`SubmarineInvoice`),
/// reads the tip and the clock.
///
/// The danger these rules close: the provider pays first and claims the client's lock with
/// the preimage afterwards. If the payee (or a node on the route) could hold the payment's
/// HTLC until after the client may refund, it would release the preimage when the lock is
/// already gone: the provider paid, and the client has both its coins and its payment.
///
/// CLTV bound (docs/HTLC.md, "Submarine CLTV bound"):
///
///     cltv_limit = timeout − tip − margin
///     margin     = claim window 6 + on-chain resolution 3 + tip skew 3 = 12 blocks
///
/// - claim window (6, `TimelockPolicy.firstClaimCutoff`): the provider's claim is broadcast
///   with at least 6 blocks before the refund is valid, fee-bumped every block, as a
///   reverse client's first claim is;
/// - on-chain resolution (3): when a downstream node takes the HTLC on chain with the
///   preimage at its expiry, that claim can confirm a few blocks after it, racing the
///   provider's own HTLC timeout;
/// - tip skew (3): the provider's Lightning node and its chain view may disagree by a block
///   or two, and a one-block reorg moves the tip back.
///
/// LND's `cltv_limit` bounds the route's whole time lock: the invoice's final delta, LND's
/// 3-block final padding and every forwarding hop's delta. So at SwapRequest the invoice
/// is admitted only if that whole route still fits at the latest payment the rule plans
/// for, the lock's confirmations plus a wait of 12 blocks:
///
///     min_final_cltv_expiry + 3 + route allowance <= cltv_limit at tip + confirmations + 12
///
/// The route allowance is the provider's `submarine_route_cltv_blocks` (160 by default: two
/// hops at LND's default delta of 80). The engine computes the limit again from the tip
/// when it pays, and pays nothing once not even a direct route fits
/// (`min_final_cltv_expiry + 3 > cltv_limit`); the client refunds after the timeout.
public struct SubmarineRules: Sendable, Hashable {
    public static let claimWindowBlocks = TimelockPolicy.firstClaimCutoff
    public static let onchainResolutionBlocks = 3
    public static let tipSkewBlocks = 3
    /// 12: what `cltv_limit` keeps between the payment's latest preimage and the timeout.
    public static let cltvMarginBlocks = claimWindowBlocks + onchainResolutionBlocks + tipSkewBlocks
    /// LND adds 3 blocks (`BlockPadding`) to the final hop's delta, inside `cltv_limit`.
    public static let finalHopPaddingBlocks = 3
    /// Bitcoin's block interval the invoice's expiry is measured against.
    public static let blockIntervalSeconds: UInt64 = 600
    /// Blocks the lock may wait for its confirmations beyond the fewest possible: at
    /// mainnet pace a lock can miss a few blocks (a fee estimate outbid, slow blocks), and a
    /// provider paying many swaps at once pays some a few blocks late. Two hours of blocks.
    public static let confirmationWaitBlocks = 12
    /// Blocks after the accept within which the client's lock must be seen (in the mempool
    /// or a block), or the provider gives the swap up and frees what it promised: a client
    /// locks right after the accept, and a request that never locks would otherwise hold
    /// the provider's Lightning liquidity until the CLTV bound, about 45 hours at mainnet
    /// pace (SUB-LIQ-1). Twice the confirmation wait: four hours of blocks.
    public static let lockWaitBlocks = 2 * confirmationWaitBlocks
    /// The route allowance when the provider names none: two forwarding hops at LND's
    /// default delta of 80 (or one at Eclair's 144).
    public static let defaultRouteCLTVBlocks = 160
    /// Beyond `confirmations × 600 s`: the client's lock broadcast, blocks slower than the
    /// average, and the payment's own time. 30 minutes: an invoice of the usual hour covers
    /// a lock of up to 3 confirmations.
    public static let expiryMarginSeconds: UInt64 = 1_800

    /// The provider's network (the invoice must be for it).
    public let network: Network
    /// The provider's own Lightning node key: it never pays itself.
    public let providerNodeID: PublicKey
    /// What the route's forwarding hops may add to the invoice's final delta, kept free
    /// under the limit at SwapRequest (0: every payee is a direct peer of the provider).
    public let routeCLTVBlocks: Int

    public init(network: Network, providerNodeID: PublicKey, routeCLTVBlocks: Int = defaultRouteCLTVBlocks) {
        self.network = network
        self.providerNodeID = providerNodeID
        self.routeCLTVBlocks = max(0, routeCLTVBlocks)
    }

    /// The last height at which a provider still waits for a lock it has not seen: the
    /// accept's tip (the timeout less the quote's `htlc_timeout_blocks`, as both sides read
    /// it from the signed accept) plus `lockWaitBlocks`. From the next block on, the swap is
    /// given up.
    public static func lockDeadlineHeight(timeoutHeight: UInt32, htlcTimeoutBlocks: Int) -> UInt32 {
        acceptHeight(timeoutHeight: timeoutHeight, htlcTimeoutBlocks: htlcTimeoutBlocks) + UInt32(lockWaitBlocks)
    }

    /// The tip a swap was accepted at, as the signed accept gives it: its timeout less the
    /// quote's `htlc_timeout_blocks` (0 at least). No lock of the swap can be older.
    public static func acceptHeight(timeoutHeight: UInt32, htlcTimeoutBlocks: Int) -> UInt32 {
        timeoutHeight - UInt32(clamping: min(Int(timeoutHeight), max(0, htlcTimeoutBlocks)))
    }

    /// The last tip at which a client may still send a lock its node never took: the
    /// provider's deadline less the tip skew, so the lock reaches the provider's mempool
    /// while it still waits even when the provider's chain view is a few blocks ahead.
    /// Past it, a lock would be one the provider no longer pays for: the client's coins
    /// would wait for the refund at the timeout, two days at mainnet pace.
    public static func lastLockBroadcastHeight(timeoutHeight: UInt32, htlcTimeoutBlocks: Int) -> Int {
        Int(lockDeadlineHeight(timeoutHeight: timeoutHeight, htlcTimeoutBlocks: htlcTimeoutBlocks)) - tipSkewBlocks
    }

    /// The CLTV limit for a payment sent at `tipHeight` toward a lock timing out at
    /// `timeoutHeight`; negative when the timeout is already too close to pay at all.
    public static func cltvLimit(timeoutHeight: UInt32, tipHeight: UInt32) -> Int {
        Int(timeoutHeight) - Int(tipHeight) - cltvMarginBlocks
    }

    /// `limit`, counted from the chain backend's tip `tipHeight`, as LND must be given it:
    /// LND counts `cltv_limit` from its own best block, so a backend `lag` blocks behind
    /// LND would let the route's time lock reach `lag` blocks further, into the claim
    /// window (SUB-CLTV-1). Never 0, which LND reads as "its own maximum": a limit used up
    /// by the lag is 1, under which no route fits.
    public static func cltvLimit(_ limit: UInt32, countedFrom tipHeight: UInt32, lightningHeight: Int?) -> UInt32 {
        let lag = max(0, (lightningHeight ?? 0) - Int(tipHeight))
        return UInt32(clamping: max(1, Int(limit) - lag))
    }

    /// Whether an invoice with `minFinalCLTVExpiry` can be routed under `cltvLimit`.
    public static func fitsUnder(cltvLimit: Int, minFinalCLTVExpiry: Int) -> Bool {
        minFinalCLTVExpiry + finalHopPaddingBlocks <= cltvLimit
    }

    /// Whether a provider can still pay `invoice` for a lock that reaches its confirmations
    /// `blocksToGo` blocks after `tipHeight`, at `nowUnix`: the invoice unexpired by then (a
    /// block counted as `blockIntervalSeconds`), and the invoice's final delta still fitting
    /// under the CLTV limit computed from that height. A provider gives a swap up once this
    /// is false; a client reads it to know when a lock stuck in the mempool is no longer
    /// worth a fee to lift.
    public static func canStillPay(_ invoice: SubmarineInvoice, timeoutHeight: UInt32, tipHeight: UInt32,
                                   nowUnix: UInt64, blocksToGo: Int) -> Bool {
        let limit = cltvLimit(timeoutHeight: timeoutHeight, tipHeight: tipHeight + UInt32(max(0, blocksToGo)))
        guard fitsUnder(cltvLimit: limit, minFinalCLTVExpiry: invoice.minFinalCLTVExpiry) else { return false }
        return nowUnix + UInt64(max(0, blocksToGo)) * blockIntervalSeconds < invoice.expiresAtUnix
    }

    /// The latest payment height admission plans for: the lock's confirmations (at least
    /// 1) and the confirmation wait after `tipHeight`.
    public static func latestPlannedPayment(tipHeight: UInt32, confirmations: Int) -> UInt32 {
        tipHeight + UInt32(max(confirmations, 1)) + UInt32(confirmationWaitBlocks)
    }

    /// Checks `invoice` for a SwapRequest redeeming `quote` (an `onchain_to_ln` quote), at
    /// `tipHeight` and `nowUnix`, for a lock timing out at `timeoutHeight`. Returns the CLTV
    /// limit at the latest planned payment (`latestPlannedPayment`), which the invoice's
    /// final delta, LND's padding and the route allowance fit under.
    @discardableResult
    public func check(_ invoice: SubmarineInvoice, quote: Quote, timeoutHeight: UInt32, tipHeight: UInt32,
                      nowUnix: UInt64) throws(SubmarineRefusal) -> Int {
        guard invoice.network == network else {
            throw .wrongNetwork(invoice: invoice.network.rawValue, provider: network.rawValue)
        }
        guard let amountMsat = invoice.amountMsat else { throw .noAmount }
        guard quote.amountSat >= 0, amountMsat == UInt64(quote.amountSat) * 1_000 else {
            throw .amountMismatch(invoiceMsat: amountMsat, quotedSat: quote.amountSat)
        }
        if let quoted = quote.paymentHash, quoted != invoice.paymentHash { throw .hashMismatch }
        guard invoice.payeeNodeID != providerNodeID else { throw .paysProvider }
        let confirmations = UInt64(max(quote.requiredConfirmations, 1))
        let needed = nowUnix + confirmations * Self.blockIntervalSeconds + Self.expiryMarginSeconds
        guard invoice.expiresAtUnix >= needed else {
            throw .expiresTooSoon(expiresAtUnix: invoice.expiresAtUnix, neededUntilUnix: needed)
        }
        let latestPayment = Self.latestPlannedPayment(tipHeight: tipHeight, confirmations: Int(confirmations))
        let limit = Self.cltvLimit(timeoutHeight: timeoutHeight, tipHeight: latestPayment)
        // Not even a 1-block final delta would leave the route its allowance.
        let smallest = Self.finalHopPaddingBlocks + routeCLTVBlocks + 1
        guard limit >= smallest else {
            throw .timeoutTooClose(blocksLeft: Int(timeoutHeight) - Int(latestPayment),
                                   needed: Self.cltvMarginBlocks + smallest)
        }
        guard Self.fitsUnder(cltvLimit: limit - routeCLTVBlocks, minFinalCLTVExpiry: invoice.minFinalCLTVExpiry) else {
            throw .finalCLTVTooLong(minFinalCLTVExpiry: invoice.minFinalCLTVExpiry, routeCLTVBlocks: routeCLTVBlocks,
                                    cltvLimit: limit)
        }
        return limit
    }
}
