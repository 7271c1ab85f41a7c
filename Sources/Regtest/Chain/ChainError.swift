import Bitcoin

/// Failures of the hub itself or of a request about the chain, as opposed to a transaction
/// the mempool refuses (`MempoolRejection`). A kernel rejection of a block the hub built is
/// a hub bug and is reported with Core's reason, never swallowed.
public enum ChainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kernel refused a block the hub assembled or replayed.
    case kernelRejectedBlock(hash: BlockHash, height: Int, reason: String)
    /// The kernel's active chain and the hub's view disagree.
    case viewDiverged(String)
    /// No block with this hash is known (Core: -5 "Block not found").
    case unknownBlock(BlockHash)
    /// A request the hub cannot honour (e.g. invalidating genesis, mining 0 blocks).
    case invalidRequest(String)
    /// libbitcoinkernel could not be loaded or failed a call.
    case kernel(String)

    public var description: String {
        switch self {
        case .kernelRejectedBlock(let hash, let height, let reason):
            return "hub bug: the kernel rejected block \(hash) at height \(height): \(reason)"
        case .viewDiverged(let why): return "hub bug: the hub's chain view diverged from the kernel's: \(why)"
        case .unknownBlock(let hash): return "block \(hash) not found"
        case .invalidRequest(let why): return why
        case .kernel(let why): return "kernel: \(why)"
        }
    }
}
