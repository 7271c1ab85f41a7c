/// The newest verified packet known for each key, and when it was fetched. The rule the
/// resolver relies on: a packet replaces the one held only when it is more recent
/// (`SignedPacket.isMoreRecent`), so a relay serving an older packet (a stale one, or a
/// replay) never turns the book back, and an unverifiable one never reaches it.
public struct PkarrPacketBook: Sendable {
    public struct Entry: Sendable, Equatable {
        public let packet: SignedPacket
        /// Unix seconds of the last fetch that confirmed or replaced it.
        public let fetchedAtUnix: UInt64
    }

    private(set) public var entries: [Pubky: Entry] = [:]

    public init() {}

    /// Keeps `packet` when it is newer than the one held (or the first); a fetch that
    /// returned the held packet again refreshes its time. True when the packet changed.
    @discardableResult
    public mutating func offer(_ packet: SignedPacket, atUnix now: UInt64) -> Bool {
        if let held = entries[packet.pubky] {
            if held.packet == packet {
                entries[packet.pubky] = Entry(packet: held.packet, fetchedAtUnix: max(held.fetchedAtUnix, now))
                return false
            }
            guard packet.isMoreRecent(than: held.packet) else { return false }
        }
        entries[packet.pubky] = Entry(packet: packet, fetchedAtUnix: now)
        return true
    }

    public func packet(for pubky: Pubky) -> SignedPacket? { entries[pubky]?.packet }

    /// True while the packet held for `pubky` is within its TTL of its last fetch.
    public func isFresh(_ pubky: Pubky, nowUnix: UInt64) -> Bool {
        guard let entry = entries[pubky] else { return false }
        return nowUnix < entry.fetchedAtUnix + UInt64(entry.packet.minimumTTL ?? 0)
    }
}
