import Synchronization
import Transport

/// The clients that have a provider swap which is not final yet. The provider engine
/// keeps it current as swaps start, resume and end; the daemon's peer server reads it
/// (through `ProtectedPeers`) while it ranks peers for eviction, so a client waiting for
/// its lock, its settlement or its refund is never dropped to make room for a newcomer.
/// Behind a lock because the server asks synchronously, from outside the engine's actor.
public final class LiveSwapPeers: Sendable {
    private let clients = Mutex<Set<Pubky>>([])

    public init() {}

    public func contains(_ pubky: Pubky) -> Bool { clients.withLock { $0.contains(pubky) } }

    /// Every client with a live swap now.
    public var all: Set<Pubky> { clients.withLock { $0 } }

    /// Replaces the set: the engine hands over the whole of it after each change, which
    /// cannot drift out of step with its swaps the way counted increments could.
    func replace(with current: Set<Pubky>) { clients.withLock { $0 = current } }
}
