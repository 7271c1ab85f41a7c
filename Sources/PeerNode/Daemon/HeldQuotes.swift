import Bitcoin
import Synchronization

/// The quotes `peernode quote` fetched, until `pay --quote <id>` commits one. Held in
/// memory only: a quote lives minutes at the provider, so a restart simply forgets them
/// (`pay --quote` then says the id is unknown here). A quote is taken once; an expired one
/// is kept a while so that committing it reaches the provider, whose `quote_expired` is
/// the answer the user sees, rather than "unknown id".
final class HeldQuotes: Sendable {
    struct Entry: Sendable {
        let firm: ClientFirmQuote
        /// The contact's name it was fetched for; nil for a swap-out quote.
        let contact: String?
        /// The address the contact gave when quoting; nil for a swap-out quote.
        let destination: Address?
    }

    /// At most this many held; the oldest go first.
    static let capacity = 100
    /// An expired quote is forgotten this long after its expiry.
    static let keepExpiredSeconds: UInt64 = 3_600

    private let entries = Mutex<[(id: String, entry: Entry)]>([])

    func hold(_ entry: Entry, nowUnix: UInt64) {
        entries.withLock { list in
            list.removeAll { $0.entry.firm.quote.validUntilUnix + Self.keepExpiredSeconds < nowUnix }
            list.append((entry.firm.quoteID, entry))
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
