/// One step of a client submarine swap, for live progress lines and logs: the steps
/// before the record exists (`quoting`, `requesting_swap`), every phase entered (by its
/// stored name), and notes (broadcasts, bumps, what a spend revealed).
public struct SubmarineClientProgress: Sendable, Hashable, CustomStringConvertible {
    public static let quoting = "quoting"
    public static let requestingSwap = "requesting_swap"
    public static let note = "note"

    /// Nil before the swap has an id.
    public let swapID: String?
    /// `quoting`, `requesting_swap`, a `SubmarineClientPhase` raw value, or `note`.
    public let stage: String
    public let atUnix: UInt64
    public let detail: String

    public init(swapID: String?, stage: String, atUnix: UInt64, detail: String) {
        self.swapID = swapID
        self.stage = stage
        self.atUnix = atUnix
        self.detail = detail
    }

    public var description: String {
        "[\(atUnix)] \(swapID.map { "submarine swap \($0): " } ?? "")\(stage): \(detail)"
    }
}
