import Bitcoin

/// Why `pay`, `swap-out` and `quote` are refused after the node started with a new or
/// stale database (audit H-5, `RecoveryFlag`): swaps the database does not know may be in
/// flight, and only a recovery scan finds them (and moves the swap index past them).
public enum RecoveryRequiredError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `reason` is the flag's; `command` the refused command; `network` picks the recover
    /// command line to suggest (regtest scans from 0 by default).
    case scanRequired(reason: String, command: String, network: Network)

    /// The control API's code for it (`peernode` exits 1, as for every refused command).
    public static let code = "recovery_required"

    public var description: String {
        switch self {
        case .scanRequired(let reason, let command, let network):
            let recover = network == .regtest
                ? "`peernode recover`"
                : "`peernode recover --from-height <height>`, with a block height at or before this node's first swap,"
            return "\(command) is refused until a recovery scan has run: \(reason). Swaps this database does not know "
                + "may still hold funds on chain. Run \(recover) (see docs/RECOVERY.md), then \(command) again; "
                + "nothing was paid"
        }
    }

    var controlError: ControlError { ControlError(code: Self.code, message: description) }
}
