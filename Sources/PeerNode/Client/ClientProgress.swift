/// One step of a client swap, for live progress lines and logs. Every phase the swap
/// enters is reported, with the steps before the record exists (quoting, asking for the
/// swap) and notes along the way (broadcasts, bumps, retries).
public struct ClientProgress: Sendable, Hashable, CustomStringConvertible {
    public enum Stage: Sendable, Hashable, CustomStringConvertible {
        case quoting
        case requestingSwap
        case phase(ClientSwapPhase)
        case note

        public var description: String {
            switch self {
            case .quoting: return "quoting"
            case .requestingSwap: return "requesting_swap"
            case .phase(let phase): return phase.rawValue
            case .note: return "note"
            }
        }
    }

    /// Nil before the swap has an id (while quoting).
    public let swapID: String?
    public let stage: Stage
    /// Unix seconds.
    public let atUnix: UInt64
    public let detail: String

    public init(swapID: String?, stage: Stage, atUnix: UInt64, detail: String) {
        self.swapID = swapID
        self.stage = stage
        self.atUnix = atUnix
        self.detail = detail
    }

    public var description: String {
        "[\(atUnix)] \(swapID.map { "swap \($0): " } ?? "")\(stage): \(detail)"
    }
}
