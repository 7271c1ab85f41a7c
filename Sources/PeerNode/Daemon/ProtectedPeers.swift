import Synchronization
import Transport

/// The pubkys the daemon's peer server never evicts for a newcomer: saved contacts, kept
/// current as contacts are added and removed, and clients with a live provider swap, kept
/// current by the provider engine (`LiveSwapPeers`). Behind a lock because the server asks
/// synchronously while it ranks peers, and the control commands change it from their
/// own tasks.
public final class ProtectedPeers: Sendable {
    private let pubkys = Mutex<Set<Pubky>>([])
    /// Fed by the provider engine; empty when the node runs no provider.
    public let liveSwaps: LiveSwapPeers

    public init(_ initial: some Sequence<Pubky> = [], liveSwaps: LiveSwapPeers = LiveSwapPeers()) {
        pubkys.withLock { $0 = Set(initial) }
        self.liveSwaps = liveSwaps
    }

    public func contains(_ pubky: Pubky) -> Bool {
        pubkys.withLock { $0.contains(pubky) } || liveSwaps.contains(pubky)
    }

    public func insert(_ pubky: Pubky) { pubkys.withLock { _ = $0.insert(pubky) } }
    public func remove(_ pubky: Pubky) { pubkys.withLock { _ = $0.remove(pubky) } }
}
