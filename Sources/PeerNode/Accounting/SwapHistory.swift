/// What the store holds about one swap, as the accounting reads it: the contract, the
/// whole event log, and (client swaps) the routing fee recorded when the payment succeeded.
public struct SwapHistory: Sendable {
    public let record: SwapRecord
    public let events: [SwapEvent]
    public let routingFeeMsat: Int64?

    public init(record: SwapRecord, events: [SwapEvent], routingFeeMsat: Int64? = nil) {
        self.record = record
        self.events = events
        self.routingFeeMsat = routingFeeMsat
    }
}
