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

/// A contact together with its offer.
public struct ProviderOffer: Sendable, Equatable {
    public let contact: Contact
    public let offer: Signed<Offer>

    public init(contact: Contact, offer: Signed<Offer>) {
        self.contact = contact
        self.offer = offer
    }
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

/// The outcome of probing a set of contacts.
public struct ProbeReport: Sendable, Equatable {
    /// Checked offers: signed by the contact, this network, a supported version, unexpired.
    public var offers: [ProviderOffer]
    /// The debug list: every other contact, with its reason.
    public var skipped: [SkippedContact]
    /// Contacts asked over the network this time (the rest came from the cache).
    public var probed: Int

    public init(offers: [ProviderOffer] = [], skipped: [SkippedContact] = [], probed: Int = 0) {
        self.offers = offers
        self.skipped = skipped
        self.probed = probed
    }
}
