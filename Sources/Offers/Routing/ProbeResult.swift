import Transport

/// What probing one contact gave.
public enum ProbeResult: Sendable, Equatable {
    /// An offer as received, not yet checked (the router checks it).
    case offer(Signed<Offer>)
    case skipped(SkipReason)

    /// Reads a reply to an OfferRequest.
    public static func interpret(reply: [UInt8]) -> ProbeResult {
        do {
            switch try SwapMessage(bytes: reply) {
            case .offer(let offer): return .offer(offer)
            case .reject(let reject): return .skipped(.rejected(reject.code))
            default: return .skipped(.notAProvider("answered with another swap/1 message"))
            }
        } catch .unknownMessageType {
            return .skipped(.notAProvider("answered with a message type it does not share with us"))
        } catch {
            return .skipped(.invalidOffer(error.description))
        }
    }
}

/// A contact together with the terms it is priced by: its signed offer, or (before it has
/// been asked anything) the capability descriptor it published (docs/PUBKY.md, section 8).
/// Only a signed offer is ever quoted against: `Router.confirm` turns a descriptor-ranked
/// provider into one by asking that provider alone.
public struct ProviderOffer: Sendable, Equatable {
    public let contact: Contact
    /// What the selectors price: the offer's body, or the descriptor's terms.
    public let terms: Offer
    /// The provider's signed offer; nil when the terms come from its descriptor.
    public let signed: Signed<Offer>?

    public init(contact: Contact, offer: Signed<Offer>) {
        self.contact = contact
        terms = offer.body
        signed = offer
    }

    /// A provider ranked from its published descriptor, not asked anything yet.
    public init(contact: Contact, descriptor: CapabilityDescriptor) {
        self.contact = contact
        terms = descriptor.offerTerms(provider: contact.pubky)
        signed = nil
    }

    /// True when ranked from a descriptor (`signed` is nil).
    public var fromDescriptor: Bool { signed == nil }
}

/// A contact that is not a route, and why.
public struct SkippedContact: Sendable, Equatable, CustomStringConvertible {
    public let contact: Contact
    public let reason: SkipReason

    public init(contact: Contact, reason: SkipReason) {
        self.contact = contact
        self.reason = reason
    }

    public var description: String { "\(contact): \(reason)" }
}

/// The outcome of probing a set of contacts, per direction: a provider running both
/// directions is in both lists, one running a single direction is skipped in the other
/// (`directionNotOffered`).
public struct ProbeReport: Sendable, Equatable {
    /// Checked offers running `ln_to_onchain` (reverse swaps): signed by the contact, this
    /// network, a supported version, unexpired.
    public var offers: [ProviderOffer]
    /// The debug list for reverse swaps: every other contact, with its reason.
    public var skipped: [SkippedContact]
    /// Checked offers running `onchain_to_ln` (submarine swaps).
    public var submarineOffers: [ProviderOffer]
    /// The debug list for submarine swaps.
    public var submarineSkipped: [SkippedContact]
    /// Contacts asked over the network this time (the rest came from the cache).
    public var probed: Int
    /// Contacts ranked from their published descriptors, asked nothing.
    public var fromDescriptors = 0
    /// Contacts whose cached offer answered, asked nothing: its limits are the provider's
    /// balances when it was made, so a route it cannot carry is worth asking again for.
    public var fromCache = 0
    /// Contacts not asked because of their last answer: none in time
    /// (`Router.Settings.timedOutHoldSeconds`), or that they run no provider
    /// (`noProviderHoldSeconds`). A refresh asks them, so a route none of the others carries
    /// is worth asking again for.
    public var heldBack = 0

    public init(offers: [ProviderOffer] = [], skipped: [SkippedContact] = [], submarineOffers: [ProviderOffer] = [],
                submarineSkipped: [SkippedContact] = [], probed: Int = 0) {
        self.offers = offers
        self.skipped = skipped
        self.submarineOffers = submarineOffers
        self.submarineSkipped = submarineSkipped
        self.probed = probed
    }

    /// Files a checked offer under each direction it runs, and as skipped in the other.
    mutating func add(_ provider: ProviderOffer) {
        if provider.terms.supports(.lightningToOnchain) {
            offers.append(provider)
        } else {
            skipped.append(SkippedContact(contact: provider.contact, reason: .directionNotOffered(.lightningToOnchain)))
        }
        if provider.terms.supports(.onchainToLightning) {
            submarineOffers.append(provider)
        } else {
            submarineSkipped.append(SkippedContact(contact: provider.contact, reason: .directionNotOffered(.onchainToLightning)))
        }
    }

    /// A contact with no usable offer is skipped in both directions.
    mutating func skip(_ contact: SkippedContact) {
        skipped.append(contact)
        submarineSkipped.append(contact)
    }

    /// The reverse candidates for `selector`'s X: the ranked offers and every skipped contact.
    public func reverse(_ selector: RouteSelector) -> RankedCandidates<RouteCandidate> {
        selector.ranked(offers).skipping(skipped)
    }

    /// The submarine candidates for `selector`'s X.
    public func submarine(_ selector: SubmarineSelector) -> RankedCandidates<SubmarineCandidate> {
        selector.rank(submarineOffers).skipping(submarineSkipped)
    }
}
