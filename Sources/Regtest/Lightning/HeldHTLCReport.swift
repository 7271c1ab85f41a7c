/// One HTLC a payee holds (`hub_ln_hold`), with the heights that bound it: what a test
/// needs to settle it at the last block LND allows, or to watch LND cancel it.
public struct HeldHTLCReport: Sendable, Hashable {
    public var paymentHash: [UInt8]
    public var payer: String
    public var amountMsat: UInt64
    public var acceptHeight: Int
    /// The HTLC's expiry at the payee (the payer's tip + final delta + padding).
    public var expiryHeight: Int
    /// Where LND's hold-expiry rule cancels it: `expiry − holdexpirydelta`. The payee can
    /// settle it at any tip below, never at or after.
    public var cancelHeight: Int
    /// The payer's outgoing HTLC's expiry, the route's `total_time_lock`: what the payer's
    /// `cltv_limit` bounds.
    public var payerTimeLock: Int?
}
