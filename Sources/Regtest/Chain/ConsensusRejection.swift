/// A transaction no block may hold: `hub_mine_transaction` refuses it with the reason Core's
/// block validation would give (`bad-txns-inputs-missingorspent`,
/// `block-script-verify-flag-failed (...)`, ...). Policy never produces one: that is what
/// the forced mining bypasses.
public struct ConsensusRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// Core's reject reason.
    public let reason: String
    /// What failed, e.g. which input.
    public let details: String?

    public init(reason: String, details: String? = nil) {
        self.reason = reason
        self.details = details
    }

    /// Core's `ValidationState::ToString()`: the reason, then `, ` and the details when present.
    public var message: String { details.map { "\(reason), \($0)" } ?? reason }
    public var description: String { message }
}
