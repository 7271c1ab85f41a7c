import HTLC

/// Why recovery stopped.
public enum RecoveryError: Error, Sendable, CustomStringConvertible {
    case chain(ChainBackendError)
    case store(StoreError)
    case keys(String)
    /// The `--contract` parameters do not read, or do not describe a swap of this seed.
    case invalidContract(String)
    /// No output paying the contract was found in the scanned blocks.
    case lockNotFound(address: String, fromHeight: Int)
    /// The lock is already spent in a way that leaves nothing for us to do.
    case nothingToRecover(String)

    public var description: String {
        switch self {
        case .chain(let error): return "chain backend: \(error)"
        case .store(let error): return "store: \(error)"
        case .keys(let reason): return "cannot derive the swap keys: \(reason)"
        case .invalidContract(let reason): return "the contract parameters are not usable: \(reason)"
        case .lockNotFound(let address, let height):
            return "no lock paying \(address) was found from height \(height); scan from an earlier height"
        case .nothingToRecover(let reason): return "nothing to recover: \(reason)"
        }
    }
}
