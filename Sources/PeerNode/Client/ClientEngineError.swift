import Lightning
import Offers

/// Why a client swap could not go on. Messages say what happened to the funds where it
/// matters, and never carry a preimage, a key or bytes a peer sent.
public enum ClientEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The quote, the accept or the provider's answer was refused (before paying).
    case offers(OffersError)
    /// The provider answered with a Reject.
    case rejected(RejectCode, reason: String)
    /// The provider could not be reached or did not answer.
    case provider(String)
    /// The spending balance does not cover the invoice and the routing reserve.
    case insufficientBalance(balanceSat: Int64, neededSat: Int64)
    /// The destination cannot be paid by a claim (unsupported type, wrong network).
    case unsupportedDestination(String)
    /// The client's own claim of the lock would break its claim policy (the fee above the
    /// cap, an output below dust) at the fee rate now: the swap is refused before
    /// anything is committed or paid.
    case claimNotViable(String)
    /// Fee estimates were unavailable for the claim fee.
    case feeEstimate(String)
    case store(String)
    /// A stored swap does not decode.
    case corruptRecord(String)
    /// The payment hash of the next swap index is one a stored client swap already used
    /// (the index counter is behind the chain: audit H-5). Nothing was sent or paid.
    case paymentHashReused(swapID: String)
    /// A submarine swap: an earlier swap of this node locked (or is locking) for an invoice
    /// with the same payment hash. Whoever learned its preimage there (the provider, any
    /// node on the payment's route) could claim a second lock without paying. Nothing was
    /// sent or locked.
    case invoiceAlreadyUsed(swapID: String)
    /// The swap ended without delivering: the outcome says where the funds are.
    case swapEnded(swapID: String, outcome: ClientSwapOutcome)
    /// A submarine swap: the wallet's confirmed savings cannot lock what the quote asks.
    case insufficientSavings(lockableSat: Int64, neededSat: Int64)
    /// A submarine swap ended (or its refund went out) without the invoice paid: the
    /// outcome says where the funds are.
    case submarineEnded(swapID: String, outcome: SubmarineClientOutcome)

    public var description: String {
        guard let fate else { return reason }
        return "\(reason); \(fate)"
    }

    /// What went wrong, without where the funds are: a swap's recorded outcome adds its
    /// fate once (`ClientSwapOutcome`), so it takes this and not `description`.
    public var reason: String {
        switch self {
        case .offers(let error): return "\(error)"
        case .rejected(let code, let reason): return "the provider refused (\(code)): \(reason)"
        case .provider(let what): return "provider: \(what)"
        case .insufficientBalance(let balance, let needed):
            return "the spending balance of \(OffersError.sats(balance)) does not cover \(OffersError.sats(needed))"
        case .unsupportedDestination(let what): return "cannot pay this destination: \(what)"
        case .feeEstimate(let what): return "no fee estimate for the claim: \(what)"
        case .claimNotViable(let what):
            return "the claim of this swap would not fit the claim policy (\(what)); pay a larger amount or wait for "
                + "lower fees"
        case .store(let what): return "the swap store failed: \(what)"
        case .corruptRecord(let what): return "a stored swap cannot be read: \(what)"
        case .paymentHashReused(let id):
            return "refusing to reuse the payment hash of swap \(id): its preimage may be public, so a provider could "
                + "take the payment without locking. The swap index is behind: run `peernode recover` (see "
                + "docs/RECOVERY.md) before paying again"
        case .invoiceAlreadyUsed(let id):
            return "swap \(id) already locked for an invoice with this payment hash: once it is paid, its preimage is "
                + "known to others, who could claim a second lock without paying. Ask the payee for a new invoice"
        case .swapEnded(let id, let outcome): return "swap \(id) ended: \(outcome.reason)"
        case .insufficientSavings(let lockable, let needed):
            return "the savings the wallet can lock now (\(OffersError.sats(lockable))) do not cover the lock of "
                + "\(OffersError.sats(needed)) and its fee"
        case .submarineEnded(let id, let outcome): return "swap \(id) ended: \(outcome)"
        }
    }

    /// Where the funds are, said once at the end of `description`; nil where the error
    /// cannot tell (a store failure, a destination refused before anything started).
    public var fate: ClientFundsFate? {
        switch self {
        case .offers, .rejected, .provider, .insufficientBalance, .feeEstimate, .claimNotViable, .paymentHashReused,
             .insufficientSavings, .invoiceAlreadyUsed:
            return .neverSent
        case .swapEnded(_, let outcome): return outcome.funds
        // A submarine outcome says its own fate (on-chain funds, not the Lightning balance).
        case .unsupportedDestination, .store, .corruptRecord, .submarineEnded: return nil
        }
    }

    /// The Reject code, when the provider refused.
    public var rejectCode: RejectCode? {
        if case .rejected(let code, _) = self { return code }
        return nil
    }

    /// The refusals saying the offer the route was chosen from no longer holds, given before
    /// anything was locked or paid: the provider restarted and forgot it (`not_found`), or
    /// the balance or limits it was made from moved (`insufficient_liquidity`,
    /// `amount_out_of_range`). Offers are cached for minutes, so asking the contacts again
    /// may find another provider, or this one's fresh terms.
    public static let staleOfferCodes: Set<RejectCode> = [.notFound, .insufficientLiquidity, .amountOutOfRange]
}
