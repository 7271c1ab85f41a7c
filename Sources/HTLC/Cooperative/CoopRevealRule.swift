/// When the client may reveal the preimage to the provider for a cooperative claim, before
/// any claim of its own is broadcast. This is the one exception to "reveal the preimage only
/// once our own claim is accepted", and it holds only while the script-path claim is still
/// certain if the provider takes the preimage and goes silent:
/// - the lock was found by the client's own node (its chain source), not taken from the
///   provider's word, and has the confirmations the swap requires;
/// - more than the first claim cutoff plus `margin` blocks remain before the timeout
///   (T − tip > cutoff + margin), so the fallback claim has the cutoff's blocks and the
///   margin's to confirm, bumped as usual, before the provider could refund.
public struct CoopRevealRule: Sendable, Hashable {
    /// Blocks on top of the claim cutoff that must remain (default 6: about an hour for a
    /// silent provider to be noticed and the script-path claim to be sent and bumped).
    public let margin: Int
    /// `TimelockPolicy.firstClaimCutoff`: below this many blocks the client claims at once.
    public let claimCutoff: Int

    public init(margin: Int = 6, claimCutoff: Int = TimelockPolicy.firstClaimCutoff) {
        self.margin = margin
        self.claimCutoff = claimCutoff
    }

    public static let `default` = CoopRevealRule()

    /// Throws `revealNotSafe` naming the first condition that fails.
    public func check(timeoutHeight: UInt32, tipHeight: UInt32, lockConfirmations: Int, requiredConfirmations: Int,
                      lockSeenByOwnNode: Bool) throws(CoopSpendError) {
        guard lockSeenByOwnNode else { throw .revealNotSafe("the lock was not found by this node's own chain source") }
        guard lockConfirmations >= requiredConfirmations else {
            throw .revealNotSafe("the lock has \(lockConfirmations) of its \(requiredConfirmations) required confirmations")
        }
        let left = Int(timeoutHeight) - Int(tipHeight)
        guard left > claimCutoff + margin else {
            throw .revealNotSafe("\(left) blocks are left before the timeout; more than \(claimCutoff + margin) are needed")
        }
    }
}
