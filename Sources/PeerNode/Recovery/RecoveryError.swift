import HTLC

/// Why recovery stopped.
public enum RecoveryError: Error, Sendable, CustomStringConvertible {
    case chain(ChainBackendError)
    case store(StoreError)
    case keys(String)
    /// The Lightning node could not be asked (a submarine provider's recovery asks it
    /// whether the invoice was paid).
    case lightning(String)
    /// The `--contract` parameters do not read, or do not describe a swap of this seed.
    case invalidContract(String)
    /// No output paying the contract was found in the scanned blocks.
    case lockNotFound(address: String, fromHeight: Int)
    /// The lock is already spent in a way that leaves nothing for us to do.
    case nothingToRecover(String)
    /// The chain backend cannot serve whole blocks (an Electrum server), and a recovery
    /// scan must look at every transaction: it finds the swaps' scripts only by trying
    /// each output against the seed's keys, so it cannot name them to an Electrum server.
    case needsWholeBlocks

    public var description: String {
        switch self {
        case .chain(let error): return "chain backend: \(error)"
        case .store(let error): return "store: \(error)"
        case .keys(let reason): return "cannot derive the swap keys: \(reason)"
        case .lightning(let reason): return "Lightning node: \(reason)"
        case .invalidContract(let reason): return "the contract parameters are not usable: \(reason)"
        case .lockNotFound(let address, let height):
            return "no lock paying \(address) was found from height \(height); scan from an earlier height"
        case .nothingToRecover(let reason): return "nothing to recover: \(reason)"
        case .needsWholeBlocks:
            return "recovery scans whole blocks, which an Electrum server does not serve (it answers only about scripts "
                + "named to it, and a lost swap's script is what the scan looks for); run `peernode recover` on a node "
                + "with chain_backend=bitcoind (Bitcoin Core with -txindex), with the same seed and from_height"
        }
    }
}
