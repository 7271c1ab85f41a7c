import Lightning
import Offers
import Transport

/// The payee side of contact invoices (issue 16): a saved contact's `InvoiceRequest` is
/// answered with a plain invoice of this node's LND (`AddInvoice`), signed by the node's
/// identity so the payer knows it is its contact's. Refusals, each changing nothing:
///
/// - a peer that is not a saved contact: `not_found` (an invoice costs LND state, and a
///   stranger has no reason to pay this node through its identity);
/// - more than `perMinute` requests from one contact within a minute: `rate_limited`,
///   with when to retry (each invoice is kept by LND until it expires);
/// - an amount outside `lightning_receive_min_sat...lightning_receive_max_sat`:
///   `amount_out_of_range`, naming the range;
/// - LND cannot make the invoice now: `internal`, saying to try later (the node's fault,
///   not the request's; the reason names no URL nor LND's words).
///
/// The invoice expires after `expirySeconds` (`lightning_receive_expiry_seconds`, an hour
/// by default: long enough to route a swap's lock to confirmation at 10-minute blocks,
/// short enough that unpaid ones do not pile up in LND) and carries LND's default final
/// CLTV delta.
final class ContactInvoiceDesk: Sendable {
    typealias IsContact = @Sendable (Pubky) async -> Bool

    static let defaultExpirySeconds = UInt64(NodeConfig.LightningReceiveSettings.defaultExpirySeconds)
    static let defaultPerMinute = 10

    let identity: NodeIdentity
    let lightning: any LightningBackend
    let limits: ContactInvoiceLimits
    let expirySeconds: UInt64
    private let isContact: IsContact
    private let limiter: PeerRequestLimiter
    private let nowMilliseconds: @Sendable () -> UInt64

    init(identity: NodeIdentity, lightning: any LightningBackend, limits: ContactInvoiceLimits,
         expirySeconds: UInt64 = defaultExpirySeconds, perMinute: Int = defaultPerMinute,
         nowMilliseconds: @escaping @Sendable () -> UInt64 = { MonotonicClock.milliseconds() },
         isContact: @escaping IsContact) {
        self.identity = identity
        self.lightning = lightning
        self.limits = limits
        self.expirySeconds = expirySeconds
        self.isContact = isContact
        self.nowMilliseconds = nowMilliseconds
        // A bucket of `perMinute`, refilled over a minute.
        limiter = PeerRequestLimiter(perSecond: Double(perMinute) / 60, burst: Double(perMinute))
    }

    /// The limits from the node's config (sat), as the request's msat are checked.
    static func limits(_ settings: NodeConfig.LightningReceiveSettings) -> ContactInvoiceLimits {
        ContactInvoiceLimits(minimumMsat: settings.minSat * 1_000, maximumMsat: settings.maxSat * 1_000)
    }

    /// Whether `peer` may ask for an invoice: the Endpoints reply names the lightning entry
    /// only to those, so a payer never chooses a rail this node would refuse it.
    func serves(_ peer: Pubky) async -> Bool { await isContact(peer) }

    /// The reply to `request` from `peer`: a signed `Invoice` or a `Reject`.
    func answer(_ request: ContactInvoiceRequest, from peer: Pubky) async -> [UInt8] {
        guard await isContact(peer) else {
            return Reject(requestID: request.requestID, code: .notFound,
                          reason: "this node makes invoices for its saved contacts only").encoded
        }
        if let waitMilliseconds = limiter.take(peer, nowMilliseconds: nowMilliseconds()) {
            return Reject(requestID: request.requestID, code: .rateLimited,
                          reason: "too many invoice requests from this contact; retry in \(waitMilliseconds) ms").encoded
        }
        do {
            try limits.check(request)
        } catch {
            return Reject(requestID: request.requestID, error: error).encoded
        }
        let created: CreatedInvoice
        do {
            created = try await lightning.addInvoice(amountMsat: UInt64(request.amountMsat), memo: request.description,
                                                     expirySeconds: expirySeconds, cltvExpiry: 0)
        } catch {
            return Reject(requestID: request.requestID, code: .internal,
                          reason: "this node's Lightning node cannot make an invoice now; try again later").encoded
        }
        let body = ContactInvoice(requestID: request.requestID, invoice: created.paymentRequest)
        return Signed(signing: body, with: identity).encoded
    }
}
