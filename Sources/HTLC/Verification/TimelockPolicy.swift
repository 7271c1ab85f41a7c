/// The timelock rules of DESIGN section 6 as pure checks. Regtest may shrink
/// `htlcTimeoutBlocks` and the confirmations, never the inequalities.
///
///     provider picks   timeout = tip + htlc_timeout_blocks
///     hold invoice     final CLTV delta = htlc_timeout_blocks + 18 + 24 + 30
///     provider locks   only if HTLC expiry >= timeout + 42 and timeout − tip >= conf + 36
///     client accepts   only if timeout − tip >= conf + 24 and |timeout − (tip + htlc_timeout_blocks)| <= 6
///     client claims    first claim only while timeout − tip > 6
public struct TimelockPolicy: Sendable, Hashable {
    public static let defaultHTLCTimeoutBlocks = 144
    public static let maximumHTLCTimeoutBlocks = 1008
    /// Blocks the client wants beyond the lock's confirmations before the timeout.
    public static let acceptMargin = 24
    /// How far the provider's timeout may sit from tip + htlc_timeout_blocks (tips differ).
    public static let timeoutTolerance = 6
    /// The first claim must go out while more than this many blocks are left.
    public static let firstClaimCutoff = 6
    /// The provider locks only with this many blocks beyond its confirmations.
    public static let providerLockMargin = 36
    /// The Lightning HTLC must outlive the swap timeout by this much: 18 blocks to see the
    /// claim and settle, 24 of safety.
    public static let htlcExpiryMargin = 18 + 24
    /// The hold invoice's final CLTV delta beyond htlc_timeout_blocks (18 + 24 + 30, the
    /// last 30 for blocks mined between the accept and the HTLC's arrival, and for the
    /// client's tip lagging the provider's). The route's hop deltas do not add to it: they
    /// lengthen the payer's HTLC, while the one the provider holds expires at the payer's
    /// tip + this delta + 3 (LND's BlockPadding), leaving 30 + 3 blocks over the 42.
    public static let invoiceDeltaMargin = 18 + 24 + 30

    /// Confirmations the client waits for before claiming (0 for zero-conf).
    public let requiredConfirmations: Int
    public let htlcTimeoutBlocks: Int

    public init(requiredConfirmations: Int, htlcTimeoutBlocks: Int = defaultHTLCTimeoutBlocks) throws {
        guard (1...Self.maximumHTLCTimeoutBlocks).contains(htlcTimeoutBlocks) else {
            throw HTLCError.htlcTimeoutBlocksOutOfRange(htlcTimeoutBlocks, maximum: Self.maximumHTLCTimeoutBlocks)
        }
        self.requiredConfirmations = max(0, requiredConfirmations)
        self.htlcTimeoutBlocks = htlcTimeoutBlocks
    }

    /// The timeout height a provider sets for a swap accepted at `tipHeight`.
    public func timeoutHeight(tipHeight: UInt32) -> UInt32 {
        tipHeight + UInt32(htlcTimeoutBlocks)
    }

    /// The hold invoice's final CLTV delta.
    public var holdInvoiceFinalCLTVDelta: Int { htlcTimeoutBlocks + Self.invoiceDeltaMargin }

    /// Client, on SwapAccept: enough blocks for the lock to confirm and the claim to follow,
    /// and the timeout where the agreed htlc_timeout_blocks puts it.
    public func checkAccept(timeoutHeight: UInt32, tipHeight: UInt32) throws {
        let left = Self.blocksLeft(timeoutHeight: timeoutHeight, tipHeight: tipHeight)
        let required = requiredConfirmations + Self.acceptMargin
        guard left >= required else { throw HTLCError.timeoutTooClose(blocksLeft: left, required: required) }
        let expected = Int(tipHeight) + htlcTimeoutBlocks
        guard abs(Int(timeoutHeight) - expected) <= Self.timeoutTolerance else {
            throw HTLCError.timeoutOutsideWindow(timeout: timeoutHeight, expected: UInt32(clamping: expected),
                                                 tolerance: Self.timeoutTolerance)
        }
    }

    /// Client, before its first claim: more than 6 blocks left, or it stays silent (the
    /// preimage stays secret, the provider refunds and the payment returns).
    public func checkFirstClaim(timeoutHeight: UInt32, tipHeight: UInt32) throws {
        let left = Self.blocksLeft(timeoutHeight: timeoutHeight, tipHeight: tipHeight)
        guard left > Self.firstClaimCutoff else {
            throw HTLCError.timeoutTooClose(blocksLeft: left, required: Self.firstClaimCutoff + 1)
        }
    }

    /// Provider, before locking: the Lightning HTLC it holds outlives the swap timeout by
    /// 42 blocks, and enough blocks remain for the client to see the lock confirm and claim.
    public func checkProviderLock(htlcExpiryHeight: UInt32, timeoutHeight: UInt32, tipHeight: UInt32) throws {
        let requiredExpiry = UInt64(timeoutHeight) + UInt64(Self.htlcExpiryMargin)
        guard UInt64(htlcExpiryHeight) >= requiredExpiry else {
            throw HTLCError.htlcExpiryTooEarly(expiry: htlcExpiryHeight, required: UInt32(clamping: requiredExpiry))
        }
        let left = Self.blocksLeft(timeoutHeight: timeoutHeight, tipHeight: tipHeight)
        let required = requiredConfirmations + Self.providerLockMargin
        guard left >= required else { throw HTLCError.timeoutTooClose(blocksLeft: left, required: required) }
    }

    /// timeout − tip (negative once the timeout has passed).
    public static func blocksLeft(timeoutHeight: UInt32, tipHeight: UInt32) -> Int {
        Int(timeoutHeight) - Int(tipHeight)
    }
}
