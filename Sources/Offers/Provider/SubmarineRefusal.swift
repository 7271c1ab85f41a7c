/// Why a provider refuses an `onchain_to_ln` SwapRequest's invoice (`SubmarineRules`), or
/// refuses to pay it later. Each names the numbers a client can act on, never bytes it sent.
public enum SubmarineRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The invoice is for another network than the provider's.
    case wrongNetwork(invoice: String, provider: String)
    /// An invoice without an amount: the provider pays exactly the quoted amount or nothing.
    case noAmount
    /// The invoice's amount is not the quote's `amount_sat`.
    case amountMismatch(invoiceMsat: UInt64, quotedSat: Int64)
    /// The invoice pays another hash than the one the quote was made for.
    case hashMismatch
    /// The invoice is the provider's own: paying it would move nothing and the provider
    /// would still claim the lock.
    case paysProvider
    /// The invoice expires before the lock could have its confirmations at 10-minute blocks
    /// plus the margin.
    case expiresTooSoon(expiresAtUnix: UInt64, neededUntilUnix: UInt64)
    /// The invoice's `min_final_cltv_expiry`, LND's 3-block padding and the provider's
    /// route allowance do not fit under the CLTV limit it may pay with at the latest
    /// payment it plans for: a route through the usual hops could not keep the payment's
    /// HTLCs from outliving the provider's last safe claim.
    case finalCLTVTooLong(minFinalCLTVExpiry: Int, routeCLTVBlocks: Int, cltvLimit: Int)
    /// The lock's timeout leaves no CLTV room for a route at the latest planned payment.
    case timeoutTooClose(blocksLeft: Int, needed: Int)

    /// A stable code per case, for logs and the Reject's reason.
    public var code: String {
        switch self {
        case .wrongNetwork: return "invoice_wrong_network"
        case .noAmount: return "invoice_no_amount"
        case .amountMismatch: return "invoice_amount_mismatch"
        case .hashMismatch: return "invoice_hash_mismatch"
        case .paysProvider: return "invoice_pays_provider"
        case .expiresTooSoon: return "invoice_expires_too_soon"
        case .finalCLTVTooLong: return "invoice_final_cltv_too_long"
        case .timeoutTooClose: return "timeout_too_close"
        }
    }

    /// Every refusal is the request's fault: `invalid_request`, with `description` as reason.
    public var rejectCode: RejectCode { .invalidRequest }

    public var description: String {
        let text: String
        switch self {
        case .wrongNetwork(let invoice, let provider):
            text = "the invoice is for \(invoice); this provider pays on \(provider)"
        case .noAmount:
            text = "the invoice has no amount; ask the payee for one of the quoted amount"
        case .amountMismatch(let invoiceMsat, let quotedSat):
            text = "the invoice asks for \(invoiceMsat) msat; the quote is for \(OffersError.sats(quotedSat)) (\(quotedSat * 1_000) msat)"
        case .hashMismatch:
            text = "the invoice's payment hash is not the one the quote was made for"
        case .paysProvider:
            text = "the invoice pays this provider's own node"
        case .expiresTooSoon(let expiresAt, let needed):
            text = "the invoice expires at \(expiresAt) (unix); the lock's confirmations need it valid until \(needed) at least"
        case .finalCLTVTooLong(let minFinal, let route, let limit):
            text = "the invoice's min_final_cltv_expiry of \(minFinal) blocks is over the \(max(0, limit - route - 3)) "
                + "this provider can route: its CLTV limit at the latest payment it plans for is \(limit) blocks, of which "
                + "\(route) are kept for the route's hops and 3 for LND's padding; ask for a shorter one or a longer timeout"
        case .timeoutTooClose(let left, let needed):
            text = "the timeout is \(left) blocks after the latest planned payment; \(needed) needed"
        }
        return "\(code): \(text)"
    }
}
