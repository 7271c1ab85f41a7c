import Bitcoin

/// Everything the on-chain wallet refuses or fails at, as cases a caller can act on.
///
/// Messages name amounts and txids, never key material.
public enum WalletError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The spendable coins do not cover the outputs plus the fee at the requested rate.
    /// `needed` includes the fee for spending every coin that was available (at least one).
    case insufficientFunds(needed: Int64, available: Int64)
    /// The wallet has no unconfirmed transaction with this txid.
    case noSuchTransaction(TransactionID)
    /// The transaction cannot be fee-bumped the way that was asked, and why.
    case notReplaceable(TransactionID, reason: String)
    /// An amount the wallet will not pay: not positive, or below the output's dust threshold.
    case invalidAmount(Int64, reason: String)
    /// An address or contract for another network, or one the wallet cannot pay.
    case invalidDestination(String)
    /// The seed cannot give BIP32 keys (wrong length, or the one-in-2^127 invalid master key).
    case invalidSeed(String)
    /// Signing failed; this is a bug (a key or sighash the wallet built itself was refused).
    case signing(String)
    /// The chain backend failed or refused; Core's reason is inside.
    case backend(ChainBackendError)
    /// The transaction built now pays another fee than the one the user was shown and
    /// confirmed (the wallet's coins changed in between); it was not broadcast.
    case feeChanged(shownSat: Int64, nowSat: Int64)

    public var description: String {
        switch self {
        case .insufficientFunds(let needed, let available):
            return "insufficient funds: need \(needed) sat including the fee, \(available) sat spendable"
        case .noSuchTransaction(let txid):
            return "the wallet has no unconfirmed transaction \(txid)"
        case .notReplaceable(let txid, let reason):
            return "cannot bump the fee of \(txid): \(reason)"
        case .invalidAmount(let amount, let reason):
            return "cannot pay \(amount) sat: \(reason)"
        case .invalidDestination(let reason):
            return "invalid destination: \(reason)"
        case .invalidSeed(let reason):
            return "the node seed cannot derive wallet keys: \(reason)"
        case .signing(let reason):
            return "signing failed: \(reason)"
        case .backend(let error):
            return error.description
        case .feeChanged(let shown, let now):
            return "the fee would now be \(now) sat, not the \(shown) sat confirmed (the wallet's coins changed); "
                + "nothing was sent: run the command again to see the new fee"
        }
    }
}
