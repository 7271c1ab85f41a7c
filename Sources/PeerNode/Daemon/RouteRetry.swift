import Offers
import Transport

/// What a payment does when the provider it chose fails it before anything is locked or
/// paid: which failures it gets past, and how.
///
/// A refusal of the offer itself (`ClientEngineError.staleOfferCodes`) may be honest the
/// first time: offers are cached for minutes, and the provider may have restarted or its
/// balance moved since. So every contact is asked again, once, and the refuser stays in
/// the running: its fresh offer says what it can do now.
///
/// Any other failure of a quote (no answer, a closed connection, a quote that fails its
/// checks, any other refusal), and a refusal of a fresh offer, passes that provider over:
/// the payment tries the next one of the ranking it holds. An honest provider's offers and
/// quotes read the same live state, so that takes a provider that lies, stalls or is
/// overloaded. A failure after the quote (the SwapRequest onward) is not got past, but for
/// a stale-offer refusal: the swap is recorded by then and its outcome is the answer.
///
/// Each provider is passed over at most once, so the attempts are bounded by the
/// contacts, and a provider that fails every quote can make a payment slower but cannot
/// stop it while another contact can carry it.
struct RouteRetry {
    enum Next: Equatable {
        /// Ask every contact again and take the fresh ranking's first.
        case askAgain
        /// Try the next provider of the ranking already held.
        case passOver
    }

    private(set) var askedAgain = false
    /// The providers passed over, each with why (a `skipped` entry's reason).
    private(set) var passedOver: [Pubky: String] = [:]
    /// The latest failure got past: the command's error when no provider is left.
    private(set) var lastFailure: ClientEngineError?

    /// Whether `error` is one a payment gets past: during the quote, any failure of the
    /// provider's (nothing is recorded yet); after it, a stale-offer refusal only.
    static func getsPast(_ error: ClientEngineError, duringQuote: Bool) -> Bool {
        switch error {
        case .rejected(let code, _): return duringQuote || ClientEngineError.staleOfferCodes.contains(code)
        case .offers, .provider: return duringQuote
        default: return false
        }
    }

    /// Records `provider`'s failure (one `getsPast` accepts) and says what comes next.
    mutating func failed(_ provider: Pubky, _ error: ClientEngineError) -> Next {
        lastFailure = error
        if let code = error.rejectCode, ClientEngineError.staleOfferCodes.contains(code), !askedAgain {
            askedAgain = true
            return .askAgain
        }
        passedOver[provider] = Self.passOverReason(error)
        return .passOver
    }

    /// The first of `ranked` not passed over.
    func choice<Candidate>(of ranked: [Candidate], provider: (Candidate) -> Pubky) -> Candidate? {
        ranked.first { passedOver[provider($0)] == nil }
    }

    private static func passOverReason(_ error: ClientEngineError) -> String {
        if case .rejected(let code, let reason) = error, ClientEngineError.staleOfferCodes.contains(code) {
            return "refused what its fresh offer promised (\(code.rawValue): \(reason))"
        }
        return "failed its quote (\(error.reason))"
    }
}
