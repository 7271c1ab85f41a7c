/// An outgoing payment as its payer node sees it: the fields of LND's `lnrpc.Payment`
/// that `/v2/router/send` streams.
public struct SimulatedPayment: Sendable, Hashable {
    public var paymentHash: [UInt8]
    /// The amount delivered to the payee (LND's `value_msat`).
    public var valueMsat: UInt64
    /// The routing fee paid, or reserved while in flight; 0 when no HTLC was sent.
    public var feeMsat: UInt64
    /// Known once the payment succeeded.
    public var preimage: [UInt8]?
    public var paymentRequest: String
    public var status: PaymentStatus
    public var failureReason: PaymentFailureReason
    /// The simulator's finer account of a failure (nil unless failed).
    public var failureDetail: PaymentFailureDetail?
    /// Seconds since 1970 (the injected clock).
    public var creationDate: UInt64
    /// LND's `payment_index` (1, 2, ... per node).
    public var paymentIndex: UInt64
    /// The HTLCs sent for it (LND's `htlcs`): none when no route was found.
    public var htlcs: [SimulatedHTLCAttempt] = []
    /// The clock time after which LND stops trying (`timeout_seconds` after the send). A
    /// held HTLC that fails after it fails the payment with FAILURE_REASON_TIMEOUT.
    var timeoutAt: UInt64 = .max
    /// The `cltv_limit` the send asked for (0: LND's maximum), which LND counts from its
    /// own best block; kept so a test can see what the payer allowed.
    public var cltvLimit: UInt32 = 0
}
