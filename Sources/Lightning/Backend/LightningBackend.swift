/// What the swap engine needs from a Lightning node: who it is, what it can spend, hold
/// invoices it can settle or cancel, and payments it can make while watching them.
///
/// Every method is one call to the node (except the two streams, which run until their
/// invoice or payment is final). Amounts are integer millisatoshis unless named `Sat`.
/// `LNDRESTClient` is the implementation over LND's REST API; the regtest hub serves the
/// same API, so the node's code is the same in tests and in production.
public protocol LightningBackend: Sendable {
    /// The node's identity, chain and sync state (LND `GetInfo`).
    func info() async throws(LightningBackendError) -> LightningNodeStatus

    /// The node's side of its channels now, in millisatoshis (LND `ChannelBalance`,
    /// `local_balance.msat`). It counts each channel's reserve, which cannot be sent:
    /// to decide what a payment may be, use `spendableBalance`.
    func channelBalance() async throws(LightningBackendError) -> UInt64

    /// The largest single payment LND lets the node send now, in millisatoshis: over its
    /// active channels, the most any one can carry (LND `ListChannels`, `LNDChannelBandwidth`:
    /// above its channel reserve, and on a channel the node opened, above the fee buffer
    /// that pays its commitment). One channel, because the node pays in one part; the
    /// reserve and the buffer, because LND's first hop refuses to dip into them
    /// (FAILURE_REASON_INSUFFICIENT_BALANCE).
    func spendableBalance() async throws(LightningBackendError) -> UInt64

    /// Creates a plain invoice (LND `AddInvoice`): the node picks the preimage and settles
    /// as soon as an HTLC pays it, so the payer's payment succeeds with no further call.
    /// What a payee that runs no swap asks for. `expirySeconds` 0 leaves LND's default
    /// (86,400 s; at most one year), `cltvExpiry` 0 the node's final CLTV delta (LND: 80;
    /// at least 18). The answer is checked: its payment request decodes, for its hash and
    /// amount.
    func addInvoice(amountMsat: UInt64, memo: String, expirySeconds: UInt64,
                    cltvExpiry: UInt64) async throws(LightningBackendError) -> CreatedInvoice

    /// Creates a hold invoice for `paymentHash` and returns its BOLT11 payment request.
    /// `expirySeconds` and `cltvExpiry` of 0 leave the node's defaults.
    func addHoldInvoice(paymentHash: [UInt8], amountMsat: UInt64, memo: String, expirySeconds: UInt64,
                        cltvExpiry: UInt64) async throws(LightningBackendError) -> String

    /// The invoice for `paymentHash` as the node sees it now.
    func lookupInvoice(paymentHash: [UInt8]) async throws(LightningBackendError) -> InvoiceStatus

    /// Settles the ACCEPTED hold invoice whose hash is SHA-256(`preimage`).
    func settleInvoice(preimage: [UInt8]) async throws(LightningBackendError)

    /// Cancels an OPEN or ACCEPTED invoice; a held HTLC goes back to its payer.
    func cancelInvoice(paymentHash: [UInt8]) async throws(LightningBackendError)

    /// The invoice now, then each change, ending after SETTLED or CANCELED. A broken
    /// update stream does not end it: the invoice is then looked up and the stream
    /// re-opened, so no state is missed while the node is reachable. It ends with an error
    /// only when retrying cannot help (an invoice the node does not know, a refused
    /// macaroon: a `LightningBackendError`) or when its consumer goes away.
    func subscribeInvoice(paymentHash: [UInt8]) -> AsyncThrowingStream<InvoiceStatus, any Error>

    /// Pays a BOLT11 invoice, yielding each status until SUCCEEDED or FAILED. A refusal
    /// before the payment starts is thrown as `.lnd` (`isAlreadyExists`: the node has this
    /// payment already, in flight or paid: track it); a connection that fails before the
    /// node answers throws `.unreachable`; a stream that breaks or carries an error after
    /// the node accepted the payment throws `.paymentStatusUnknown`: the payment may still
    /// complete, so track it, never treat it as failed.
    /// - Parameters:
    ///   - feeLimitSat: the most the route may cost.
    ///   - cltvLimit: the most blocks the payment's time lock may span; 0: the node's maximum.
    ///   - timeoutSeconds: how long the node keeps trying to find a route.
    func payInvoice(paymentRequest: String, feeLimitSat: UInt64, cltvLimit: UInt32,
                    timeoutSeconds: UInt32) -> AsyncThrowingStream<PaymentUpdate, any Error>

    /// The outgoing payment for `paymentHash` as the node tracks it (LND `TrackPaymentV2`):
    /// its status now, then each change, ending after SUCCEEDED or FAILED. A payment the
    /// node never sent throws `.lnd` with `isNotFound`; a stream that breaks throws
    /// `.paymentStatusUnknown` or `.unreachable` (track again).
    func trackPayment(paymentHash: [UInt8]) -> AsyncThrowingStream<PaymentUpdate, any Error>

    /// An outgoing payment as the node tracks it now (in flight while the payee holds it);
    /// nil when the node never sent one for `paymentHash`.
    func paymentStatus(paymentHash: [UInt8]) async throws(LightningBackendError) -> PaymentUpdate.Status?

    /// The payment request as the node decodes it (and refuses one for another network).
    /// The node reads an invoice with its own BOLT11 decoder first (`PaymentRequestCheck`)
    /// and uses this to check that LND, which is the one that pays it, reads the same terms.
    func decodeInvoice(_ paymentRequest: String) async throws(LightningBackendError) -> PaymentRequestDetails
}
