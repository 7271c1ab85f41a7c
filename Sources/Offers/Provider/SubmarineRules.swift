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
/// LND's `cltv_limit` bounds the route's whole time lock, its 3-block final padding
/// included, so an invoice is payable only if `min_final_cltv_expiry + 3 <= cltv_limit`.
/// At SwapRequest the check uses the earliest payment height (tip + confirmations); the
/// engine computes the limit again from the tip when it pays, and pays nothing when no
/// route fits any more (the client refunds after the timeout).
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
    /// Beyond `confirmations × 600 s`: the client's lock broadcast, blocks slower than the
    /// average, and the payment's own time. 30 minutes: an invoice of the usual hour covers
    /// a lock of up to 3 confirmations.
    public static let expiryMarginSeconds: UInt64 = 1_800

    /// The provider's network (the invoice must be for it).
    public let network: Network
    /// The provider's own Lightning node key: it never pays itself.
    public let providerNodeID: PublicKey

    public init(network: Network, providerNodeID: PublicKey) {
        self.network = network
        self.providerNodeID = providerNodeID
    }

    /// The CLTV limit for a payment sent at `tipHeight` toward a lock timing out at
    /// `timeoutHeight`; negative when the timeout is already too close to pay at all.
    public static func cltvLimit(timeoutHeight: UInt32, tipHeight: UInt32) -> Int {
        Int(timeoutHeight) - Int(tipHeight) - cltvMarginBlocks
    }

    /// Whether an invoice with `minFinalCLTVExpiry` can be routed under `cltvLimit`.
    public static func fitsUnder(cltvLimit: Int, minFinalCLTVExpiry: Int) -> Bool {
        minFinalCLTVExpiry + finalHopPaddingBlocks <= cltvLimit
    }

    /// Checks `invoice` for a SwapRequest redeeming `quote` (an `onchain_to_ln` quote), at
    /// `tipHeight` and `nowUnix`, for a lock timing out at `timeoutHeight`. Returns the CLTV
    /// limit at the earliest payment height (tip + the quote's confirmations).
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
        let earliestPayment = tipHeight + UInt32(confirmations)
        let limit = Self.cltvLimit(timeoutHeight: timeoutHeight, tipHeight: earliestPayment)
        let smallest = Self.finalHopPaddingBlocks + 1
        guard limit >= smallest else {
            throw .timeoutTooClose(blocksLeft: Int(timeoutHeight) - Int(earliestPayment),
                                   needed: Self.cltvMarginBlocks + smallest)
        }
        guard Self.fitsUnder(cltvLimit: limit, minFinalCLTVExpiry: invoice.minFinalCLTVExpiry) else {
            throw .finalCLTVTooLong(minFinalCLTVExpiry: invoice.minFinalCLTVExpiry, cltvLimit: limit)
        }
        return limit
    }
}
