import Bitcoin
import Synchronization

/// The quotes `peernode quote` fetched, until `pay --quote <id>` commits one. Held in
/// memory only: a quote lives minutes at the provider, so a restart simply forgets them
/// (`pay --quote` then says the id is unknown here). A quote is taken once; an expired one
/// is kept a while so that committing it reaches the provider, whose `quote_expired` is
/// the answer the user sees, rather than "unknown id".
final class HeldQuotes: Sendable {
    struct Entry: Sendable {
        /// The quote, by the direction of its swap.
        enum Firm: Sendable {
            /// A reverse swap to `destination`: the address the contact gave when quoting,
            /// nil for a swap-out quote (the wallet's own address is taken at commit).
            case reverse(ClientFirmQuote, destination: Address?)
            /// A submarine swap paying the invoice bound into the quote: the contact's, or
            /// this node's own (`quote --from savings` without a contact, for swap-in).
            case submarine(SubmarineClientFirmQuote)
        }

        let firm: Firm
        /// The contact's name it was fetched for; nil for a swap-out or swap-in quote.
        let contact: String?

        var quoteID: String {
            switch firm {
            case .reverse(let firm, _): return firm.quoteID
            case .submarine(let firm): return firm.quoteID
            }
        }

        var validUntilUnix: UInt64 {
            switch firm {
            case .reverse(let firm, _): return firm.quote.validUntilUnix
            case .submarine(let firm): return firm.quote.validUntilUnix
            }
        }
    }

    /// At most this many held; the oldest go first.
    static let capacity = 100
    /// An expired quote is forgotten this long after its expiry.
    static let keepExpiredSeconds: UInt64 = 3_600

    private let entries = Mutex<[(id: String, entry: Entry)]>([])

    func hold(_ entry: Entry, nowUnix: UInt64) {
        entries.withLock { list in
            list.removeAll { $0.entry.validUntilUnix + Self.keepExpiredSeconds < nowUnix }
            list.append((entry.quoteID, entry))
            if list.count > Self.capacity { list.removeFirst(list.count - Self.capacity) }
        }
    }

    /// The quote `id`, left held (for checking it fits the command before taking it).
    func entry(_ id: String) -> Entry? {
        entries.withLock { list in list.first { $0.id == id }?.entry }
    }

    /// Takes the quote `id` out (single use), or nil when it is not held.
    func take(_ id: String) -> Entry? {
        entries.withLock { list in
            guard let index = list.firstIndex(where: { $0.id == id }) else { return nil }
            return list.remove(at: index).entry
        }
    }
}
