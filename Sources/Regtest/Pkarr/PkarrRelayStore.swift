import Transport

/// What a pkarr relay keeps: the newest verified packet per key, checked as pkarr's
/// `design/relays.md` says before anything is stored. Pure: the HTTP handler
/// (`PkarrRelay`) maps each outcome to its status.
///
/// The packet a key had before the newest is kept too, so a test relay can be made to
/// serve a stale packet (`PkarrRelay.Mode.stale`).
public struct PkarrRelayStore: Sendable {
    public enum PutOutcome: Sendable, Equatable {
        /// A new packet, stored (204).
        case stored
        /// The very packet already stored (204; pkarr answers a repeat the same way).
        case unchanged
        /// The stored packet is more recent (409: BEP 44's error 302).
        case olderThanStored
        /// Over 1,072 bytes (413).
        case tooLarge
        /// A bad signature, timestamp or DNS packet (400).
        case invalid(PkarrError)
    }

    private(set) var current: [Pubky: SignedPacket] = [:]
    private(set) var previous: [Pubky: SignedPacket] = [:]

    public init() {}

    public var count: Int { current.count }

    /// Verifies `payload` for `pubky` and keeps it when it is newer than what is stored.
    public mutating func put(pubky: Pubky, payload: [UInt8]) -> PutOutcome {
        guard payload.count <= SignedPacket.maxPayloadLength else { return .tooLarge }
        let packet: SignedPacket
        do {
            packet = try SignedPacket(pubky: pubky, relayPayload: payload)
        } catch {
            return .invalid(error)
        }
        if let stored = current[pubky] {
            if stored == packet { return .unchanged }
            guard packet.isMoreRecent(than: stored) else { return .olderThanStored }
            previous[pubky] = stored
        }
        current[pubky] = packet
        return .stored
    }

    public func packet(for pubky: Pubky) -> SignedPacket? { current[pubky] }

    /// The packet stored before the newest, if the key was ever updated.
    public func previousPacket(for pubky: Pubky) -> SignedPacket? { previous[pubky] }
}
