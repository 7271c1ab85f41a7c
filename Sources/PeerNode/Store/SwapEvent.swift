import Transport

/// One entry of a swap's append-only event log. The swap's state is its last event, so an
/// intent (`pay_started`, `funding_intent`, `claim_broadcast`, `claim_observed`) recorded
/// before an irreversible act tells a restarted node exactly what may have happened.
public struct SwapEvent: Sendable, Equatable {
    /// Position in the swap's log, starting at 1, assigned by the store.
    public let sequence: Int64
    /// The state it moves the swap to (e.g. `quote_accepted`, `pay_started`, `completed`).
    public let kind: String
    /// Kind-specific details (txids, heights, raw transactions) as a JSON object.
    public let data: JSONValue
    /// Whether this event ends the swap (success or failure); no event may follow it.
    public let isFinal: Bool
    /// Unix seconds.
    public let at: Int64

    public init(sequence: Int64, kind: String, data: JSONValue, isFinal: Bool, at: Int64) {
        self.sequence = sequence
        self.kind = kind
        self.data = data
        self.isFinal = isFinal
        self.at = at
    }
}
