import Lightning

/// Whether a payment whose send failed may be sent again once tracking finds that the
/// client's Lightning node has no payment for the hash (issue 15).
///
/// "Not found" proves the payment is not in the node now; it does not prove it never
/// will be when the send may have reached the node: an answer lost on the way back
/// (`unreachable`: a timeout, a connection broken after the request was written) leaves
/// a request the node may still be starting, and a second send then races it. Only a
/// refused connection proves the request never left, so only then is sending again
/// safe; in every other case the swap waits for the payment to appear, the lock, or
/// the give-up timer.
enum ClientResendRule {
    static func maySendAgain(after sendError: LightningBackendError) -> Bool {
        if case .connectionRefused = sendError { return true }
        return false
    }
}
