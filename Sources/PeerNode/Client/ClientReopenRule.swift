import HTLC
import Lightning

/// When `swap claim` may reopen a client swap that already ended (audit H-1: a swap given
/// up while its provider's lock was still on its way). Only when claiming now is as safe
/// as it would have been before the swap ended:
///
/// - it ended `abandoned` or `failed` (a `completed` swap delivered);
/// - the Lightning payment is still held by the provider (the node tracks it in flight):
///   a claim after the payment came back would take the lock unpaid;
/// - the claim rule still allows a first claim (timeout − tip > 6);
/// - the lock it knew, if any, is unspent.
///
/// Pure: the caller gathers the facts from the node.
public enum ClientReopenRule {
    /// The phase the swap resumes in: `lock_seen`, which verifies the known lock or looks
    /// for one (with the give-up timer counting again from now while none is seen).
    public static func check(_ state: ClientSwapState, tipHeight: Int, payment: PaymentUpdate.Status?,
                             lockUnspent: Bool?) throws(ClientReopenRefusal) -> ClientSwapPhase {
        guard state.phase == .abandoned || state.phase == .failed else { throw .notGivenUp(state.phase) }
        guard case .inFlight? = payment else { throw .paymentNotHeld }
        guard let timeout = state.timeoutHeight else { throw .timeoutUnknown }
        let left = TimelockPolicy.blocksLeft(timeoutHeight: UInt32(clamping: timeout), tipHeight: UInt32(clamping: tipHeight))
        guard left > TimelockPolicy.firstClaimCutoff else { throw .claimRuleClosed(blocksLeft: left) }
        if state.lock != nil, lockUnspent != true { throw .lockSpent }
        return .lockSeen
    }
}

/// Why a final swap is not reopened; each says what the user can expect instead.
public enum ClientReopenRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case notGivenUp(ClientSwapPhase)
    case paymentNotHeld
    case timeoutUnknown
    case claimRuleClosed(blocksLeft: Int)
    case lockSpent

    public var description: String {
        switch self {
        case .notGivenUp(let phase):
            return "it ended \(phase.rawValue); only an abandoned or failed swap is reopened"
        case .paymentNotHeld:
            return "the Lightning payment is no longer held by the provider (it came back, or was never sent): "
                + "claiming now would take the lock unpaid"
        case .timeoutUnknown:
            return "its record has no timeout height, so the claim rule cannot be checked"
        case .claimRuleClosed(let left):
            return "only \(left) block(s) are left before the timeout (a first claim needs more than "
                + "\(TimelockPolicy.firstClaimCutoff)); the payment returns when the provider refunds and cancels"
        case .lockSpent:
            return "its lock is already spent"
        }
    }
}
