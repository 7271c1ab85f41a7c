/// Why a follower round failed. The follower keeps its state and tries again next round.
public enum ChainFollowerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The backend failed or refused a call.
    case backend(ChainBackendError)
    /// The backend's chain shares none of the last `window` blocks the follower saw: a
    /// reorg deeper than it can rewind. Rescan from a height below the fork.
    case forkBeyondWindow(window: Int)

    public var description: String {
        switch self {
        case .backend(let error): return "\(error)"
        case .forkBeyondWindow(let window):
            return "the chain backend's chain forks more than \(window) blocks below the followed tip; rescan from an earlier height"
        }
    }
}
