/// Whether the client's own node holds a verified lock deep enough to claim it
/// (`ClientEngine.lockHolding`). Only `held` leads to a claim.
enum ClientLockHolding: Sendable, Hashable {
    /// In the node's chain with the required confirmations, or zero-conf with confirmed inputs.
    case held
    /// Known to the node with fewer confirmations than the swap requires.
    case shallow(confirmations: Int)
    /// Unknown to the node, or a zero-conf lock on unconfirmed parents: why.
    case notHeld(String)
}
