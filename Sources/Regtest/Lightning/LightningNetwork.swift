import Bitcoin
import Lightning
import Synchronization

/// The hub's simulated Lightning network: named nodes with secp256k1 identities and
/// spendable balances, real BOLT11 invoices signed by their nodes, hold invoices whose
/// HTLCs expire with the chain, and payments that follow LND's rules and failure
/// reasons. Each method is one LND call (named in its comment), so the REST layer maps
/// an endpoint to one call and converts the JSON.
///
/// Synchronous and thread-safe: one lock guards a `LightningNetworkState`, so calls
/// from an event loop need no `await`. Time and the chain tip are injected and read
/// before the lock is taken, so the chain may call `blockConnected` while it holds a
/// lock of its own. Streams (`subscribeInvoice`, `sendPayment`, `trackPayment`) are
/// fed while the lock is held and end when their invoice or payment is final.
///
/// Policies (see `RoutingPolicy`): fee 1000 msat + 100 ppm, route CLTV delta 40,
/// maximum CLTV 2016, hold expiry delta 12 (LND's `invoices.holdexpirydelta`), block
/// padding 3 (the payee's HTLC expires at the payer's tip + final delta + 3, as in LND).
public final class LightningNetwork: Sendable {
    /// LND's `routing.MinCLTVDelta`: the smallest final CLTV delta an invoice may ask.
    public static let minCLTVDelta: UInt64 = 18
    /// LND's default final CLTV delta (`bitcoin.timelockdelta`, 80) for `cltvExpiry` 0.
    public static let defaultCLTVExpiry: UInt64 = 80
    /// LND's default invoice expiry (24 hours) for `expirySeconds` 0.
    public static let defaultInvoiceExpirySeconds: UInt64 = 86_400
    /// LND's longest memo, in bytes (`invoices.MaxMemoSize`).
    public static let maxMemoBytes = 1_024
    /// LND's longest invoice expiry: one year (invoicesrpc/addinvoice.go, `maxExpiry`).
    public static let maxInvoiceExpirySeconds: UInt64 = 365 * 24 * 3_600
    /// LND's largest invoice: 100,000 BTC (invoicesrpc/addinvoice.go, `maxInvoiceAmt`),
    /// compared in whole satoshis, so up to 999 msat over it still passes, as in LND.
    public static let maxInvoiceAmountSat: UInt64 = 100_000 * 100_000_000

    public let policy: RoutingPolicy
    private let state: Mutex<LightningNetworkState>
    private let chainTip: @Sendable () -> Int
    private let clock: @Sendable () -> UInt64

    /// - Parameters:
    ///   - chainTip: the chain's current height (for HTLC accept and expiry heights).
    ///   - clock: seconds since 1970 (invoice timestamps and expiry); the hub passes
    ///     the wall clock, tests a settable one.
    public init(policy: RoutingPolicy = .standard, chainTip: @escaping @Sendable () -> Int,
                clock: @escaping @Sendable () -> UInt64) {
        self.policy = policy
        self.state = Mutex(LightningNetworkState(policy: policy))
        self.chainTip = chainTip
        self.clock = clock
    }

    // MARK: nodes and hub control

    /// Hub control: a new node, funded with `balanceMsat`. Its identity key is derived
    /// from `name`, so the same names give the same node ids on every run.
    @discardableResult
    public func addNode(name: String, balanceMsat: UInt64, alias: String? = nil) throws(LightningSimError) -> LightningNodeInfo {
        try state.withLock { (state) throws(LightningSimError) in
            try state.addNode(name: name, balanceMsat: balanceMsat, alias: alias)
        }
    }

    /// `GET /v1/getinfo` (identity_pubkey, alias; block_height is `chainTip`) and
    /// `GET /v1/balance/channels` (local balance).
    public func node(_ name: String) throws(LightningSimError) -> LightningNodeInfo {
        try state.withLock { (state) throws(LightningSimError) in try state.node(name).info }
    }

    /// Every node, by name.
    public var nodes: [LightningNodeInfo] {
        state.withLock { state in state.nodes.values.map(\.info).sorted { $0.name < $1.name } }
    }

    /// The current chain height as the nodes see it (`/v1/getinfo` block_height).
    public var blockHeight: Int { chainTip() }

    /// Hub control: sets a node's balance, and its channel's capacity with it (so its
    /// reserve, which it cannot send); the difference counts as funding (or withdrawal)
    /// in the conservation report.
    public func setBalance(node: String, balanceMsat: UInt64) throws(LightningSimError) {
        try state.withLock { (state) throws(LightningSimError) in
            try state.setBalance(node: node, balanceMsat: balanceMsat)
        }
    }

    /// Hub control: takes a node offline (it can neither send nor receive; payments to
    /// it fail with NO_ROUTE) or back online. Its own calls still answer, and HTLCs it
    /// already holds stay held.
    public func setOnline(node: String, _ online: Bool) throws(LightningSimError) {
        try state.withLock { (state) throws(LightningSimError) in try state.setOnline(node: node, online) }
    }

    /// Hub control: while `hold` is set, an HTLC reaching one of the node's plain invoices is
    /// held as at a hold invoice (ACCEPTED, the money in flight) instead of settled at once,
    /// until `releaseHeld` or LND's hold-expiry rule (`policy.holdExpiryDelta` blocks before
    /// the HTLC's expiry) cancels it. HTLCs it holds already stay held when it is cleared.
    public func setHoldsHTLCs(node: String, _ hold: Bool) throws(LightningSimError) {
        try state.withLock { (state) throws(LightningSimError) in try state.setHoldsHTLCs(node: node, hold) }
    }

    /// Hub control: whether the node holds the HTLCs it is paid, and the ones it holds now.
    public func heldHTLCs(node: String) throws(LightningSimError) -> (holds: Bool, held: [HeldHTLCReport]) {
        try state.withLock { (state) throws(LightningSimError) in
            (try state.node(node).holdsHTLCs, try state.heldHTLCs(node: node))
        }
    }

    /// Hub control: the holding payee settles a held HTLC with its invoice's preimage (as
    /// LND's SettleInvoice, refusing an invoice that is open or already cancelled) or
    /// cancels it (CancelInvoice).
    public func releaseHeld(node: String, paymentHash: [UInt8], settle: Bool) throws(LightningSimError) {
        let now = clock()
        try state.withLock { (state) throws(LightningSimError) in
            state.expireInvoices(now: now)
            try state.releaseHeld(node: node, paymentHash: paymentHash, settle: settle, now: now)
        }
    }

    /// Hub control: every balance, the money in flight and the fees, for conservation checks.
    public func balances() -> LightningBalances {
        state.withLock { $0.balances }
    }

    // MARK: invoices

    /// `POST /v1/invoices`: a plain invoice, settled as soon as it is paid.
    /// `amountMsat` 0 makes an any-amount invoice; `expirySeconds` 0 and `cltvExpiry` 0
    /// mean LND's defaults (86400 s, 80 blocks). Without `preimage`, one is derived.
    public func addInvoice(node: String, amountMsat: UInt64, memo: String = "", expirySeconds: UInt64 = 0,
                           cltvExpiry: UInt64 = 0, preimage: [UInt8]? = nil) throws(LightningSimError) -> AddedInvoice {
        let now = clock()
        return try state.withLock { (state) throws(LightningSimError) in
            state.expireInvoices(now: now)
            var chosen = preimage ?? []
            if preimage == nil { chosen = try state.derivedPreimage(node: node) }
            let preimage = chosen
            guard preimage.count == 32 else { throw .invalidPreimageLength(preimage.count) }
            return try state.addInvoice(node: node, paymentHash: SHA256.hash(preimage), preimage: preimage,
                                        terms: .init(amountMsat: amountMsat, memo: memo,
                                                     expirySeconds: expirySeconds, cltvExpiry: cltvExpiry),
                                        now: now)
        }
    }

    /// `POST /v2/invoices/hodl`: a hold invoice for `paymentHash`, signed by the node,
    /// with `cltvExpiry` as its final CLTV delta (`c`). It waits in ACCEPTED for
    /// `settleInvoice` or `cancelInvoice` once paid.
    public func addHoldInvoice(node: String, paymentHash: [UInt8], amountMsat: UInt64, memo: String = "",
                               expirySeconds: UInt64 = 0, cltvExpiry: UInt64 = 0) throws(LightningSimError) -> AddedInvoice {
        let now = clock()
        return try state.withLock { (state) throws(LightningSimError) in
            state.expireInvoices(now: now)
            return try state.addInvoice(node: node, paymentHash: paymentHash, preimage: nil,
                                        terms: .init(amountMsat: amountMsat, memo: memo,
                                                     expirySeconds: expirySeconds, cltvExpiry: cltvExpiry),
                                        now: now)
        }
    }

    /// `GET /v2/invoices/lookup?payment_hash=`. An OPEN invoice past its expiry is
    /// cancelled first, as LND's expiry watcher would have done.
    public func lookupInvoice(node: String, paymentHash: [UInt8]) throws(LightningSimError) -> SimulatedInvoice {
        let now = clock()
        return try state.withLock { (state) throws(LightningSimError) in
            state.expireInvoices(now: now)
            return try state.lookupInvoice(node: node, paymentHash: paymentHash)
        }
    }

    /// `POST /v2/invoices/settle`: settles the ACCEPTED hold invoice whose hash is
    /// SHA-256(`preimage`); the payee is credited and the payer's payment succeeds.
    public func settleInvoice(node: String, preimage: [UInt8]) throws(LightningSimError) {
        let now = clock()
        try state.withLock { (state) throws(LightningSimError) in
            state.expireInvoices(now: now)
            try state.settleInvoice(node: node, preimage: preimage, now: now)
        }
    }

    /// `POST /v2/invoices/cancel`: OPEN or ACCEPTED -> CANCELED; a held payment returns
    /// to its payer with the fee.
    public func cancelInvoice(node: String, paymentHash: [UInt8]) throws(LightningSimError) {
        let now = clock()
        try state.withLock { (state) throws(LightningSimError) in
            state.expireInvoices(now: now)
            try state.cancelInvoice(node: node, paymentHash: paymentHash, now: now)
        }
    }

    /// `GET /v2/invoices/subscribe/{r_hash}`: the invoice now, then every change; the
    /// stream ends after SETTLED or CANCELED.
    public func subscribeInvoice(node: String, paymentHash: [UInt8]) throws(LightningSimError) -> AsyncStream<SimulatedInvoice> {
        let now = clock()
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatedInvoice.self)
        do {
            try state.withLock { (state) throws(LightningSimError) in
                state.expireInvoices(now: now)
                try state.subscribeInvoice(node: node, paymentHash: paymentHash, continuation)
            }
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    /// Hub timer: cancels OPEN invoices whose expiry has passed, so that subscribers
    /// hear of it without waiting for another call.
    public func expireInvoices() {
        let now = clock()
        state.withLock { $0.expireInvoices(now: now) }
    }

    /// `GET /v1/payreq/{pay_req}`: decodes a payment request with the BOLT11 decoder,
    /// refusing another network's as LND does.
    public func decodePaymentRequest(_ paymentRequest: String) throws(LightningSimError) -> Invoice {
        let invoice: Invoice
        do {
            invoice = try InvoiceDecoder.decode(paymentRequest)
        } catch {
            throw .invalidPaymentRequest(error)
        }
        guard invoice.currency == .regtest else { throw .wrongNetwork(prefix: invoice.currency.prefix) }
        return invoice
    }

    // MARK: payments

    /// `POST /v2/router/send` (SendPaymentV2): pays `paymentRequest` from `node`.
    ///
    /// Refusals LND makes before trying (bad or foreign request, expired invoice, amount
    /// rules, self-payment, no timeout, a payment for the hash in flight or done) throw.
    /// Otherwise the stream yields IN_FLIGHT, then SUCCEEDED (with the preimage) or
    /// FAILED (with LND's reason); at a hold invoice it stays IN_FLIGHT until the payee
    /// settles or cancels, or the HTLC nears expiry. The stream ends at the final state.
    ///
    /// - Parameters:
    ///   - amountMsat: only for an any-amount invoice, 0 otherwise.
    ///   - feeLimitMsat: the most the route may charge; 0 allows only free routes, and
    ///     the simulator's route is never free (LND's `fee_limit_msat`).
    ///   - cltvLimit: the most blocks the route's time lock may span; 0 means
    ///     `policy.maxCLTVExpiry` (LND's `cltv_limit`).
    ///   - timeoutSeconds: required, as LND requires it; the simulator routes at once,
    ///     so no attempt ever runs long enough to reach it.
    public func sendPayment(from node: String, paymentRequest: String, amountMsat: UInt64 = 0,
                            feeLimitMsat: UInt64, cltvLimit: UInt32 = 0,
                            timeoutSeconds: UInt32) throws(LightningSimError) -> AsyncStream<SimulatedPayment> {
        let now = clock()
        let tip = chainTip()
        let order = LightningNetworkState.PaymentOrder(payer: node, paymentRequest: paymentRequest, amountMsat: amountMsat,
                                                       feeLimitMsat: feeLimitMsat, cltvLimit: cltvLimit,
                                                       timeoutSeconds: timeoutSeconds)
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatedPayment.self)
        do {
            try state.withLock { (state) throws(LightningSimError) in
                state.expireInvoices(now: now)
                try state.send(order, tip: tip, now: now, continuation)
            }
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    /// `GET /v2/router/track/{payment_hash}` (TrackPaymentV2): the payment now, then
    /// every change until it is final.
    public func trackPayment(node: String, paymentHash: [UInt8]) throws(LightningSimError) -> AsyncStream<SimulatedPayment> {
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatedPayment.self)
        do {
            try state.withLock { (state) throws(LightningSimError) in
                try state.trackPayment(node: node, paymentHash: paymentHash, continuation)
            }
        } catch {
            continuation.finish()
            throw error
        }
        return stream
    }

    /// The payment's current state, without a stream.
    public func payment(node: String, paymentHash: [UInt8]) throws(LightningSimError) -> SimulatedPayment {
        try state.withLock { (state) throws(LightningSimError) in try state.payment(node: node, paymentHash: paymentHash) }
    }

    // MARK: chain

    /// Called by the hub for every new tip (a reorg's lower tip included): accepted
    /// hold-invoice HTLCs within `policy.holdExpiryDelta` blocks of expiry are
    /// cancelled and their payers refunded, as LND does before going to chain.
    public func blockConnected(height: Int) {
        let now = clock()
        state.withLock { state in
            state.expireInvoices(now: now)
            state.cancelHeldNearExpiry(height: height, now: now)
        }
    }
}
