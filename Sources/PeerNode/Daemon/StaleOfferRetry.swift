import Offers
import Transport

/// What a payment does when the provider it chose refuses the offer before anything is
/// locked or paid (`ClientEngineError.staleOfferCodes`).
///
/// The first refusal may be an honest one: the offer was cached, and the provider has
/// restarted or its balance has moved since. So every contact is asked again, once, and
/// the refuser stays in the running: its fresh offer says what it can do now. A refusal
/// of a fresh offer is different. An honest provider's offers and quotes read the same
/// live state, so it refuses one only when it lies or other clients took its liquidity
/// in between. The payment then passes that provider over and tries the next one in the
/// fresh ranking. Each provider is passed over at most once, so the attempts are bounded
/// by the number of contacts, and a provider that refuses every quote can make a payment
/// slower but cannot stop it.
struct StaleOfferRetry {
    enum Next: Equatable {
        /// Ask every contact again and take the fresh ranking's first.
        case askAgain
        /// Try the next provider of the ranking already held.
        case passOver
    }

    private(set) var askedAgain = false
    private(set) var passedOver: Set<Pubky> = []

    /// Records `provider`'s refusal and says what comes next.
    mutating func refused(by provider: Pubky) -> Next {
        guard askedAgain else {
            askedAgain = true
            return .askAgain
        }
        passedOver.insert(provider)
        return .passOver
    }

    /// The first of `ranked` not passed over.
    func choice<Candidate>(of ranked: [Candidate], provider: (Candidate) -> Pubky) -> Candidate? {
        ranked.first { !passedOver.contains(provider($0)) }
    }
}
