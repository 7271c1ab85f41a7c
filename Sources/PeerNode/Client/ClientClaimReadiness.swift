/// Whether a first claim (key path or script path) may be built now
/// (`ClientEngine.claimReadiness`).
enum ClientClaimReadiness: Sendable, Hashable {
    /// The node holds the lock as the swap requires, at this tip.
    case ready(tipHeight: Int)
    /// Not yet (the tip unreadable, the lock not held or too shallow): the next block asks again.
    case wait
    /// Never: the first-claim rule closed (why).
    case impossible(String)
}
