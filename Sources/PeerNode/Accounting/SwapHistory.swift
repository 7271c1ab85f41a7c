/// What the store holds about one swap, as the accounting reads it: the contract, the
/// whole event log, and the amounts kept beside the log because they become known after
/// (or apart from) its events: a client's routing fee, recorded when its payment succeeds;
/// the end of a client's payment that was still held when its swap ended; a provider's lock
/// fees beyond the lock's own: the child paying for a stuck lock, the withdrawal taking an
/// unconfirmed lock back (a provider's lock, or a submarine client's funding).
public struct SwapHistory: Sendable {
    public let record: SwapRecord
    public let events: [SwapEvent]
    public let routingFeeMsat: Int64?
    public let paymentEnd: ClientPaymentEnd?
    public let lockChildFeeSat: Int64?
    public let lockWithdrawalFeeSat: Int64?

    public init(record: SwapRecord, events: [SwapEvent], routingFeeMsat: Int64? = nil, paymentEnd: ClientPaymentEnd? = nil,
                lockChildFeeSat: Int64? = nil, lockWithdrawalFeeSat: Int64? = nil) {
        self.record = record
        self.events = events
        self.routingFeeMsat = routingFeeMsat
        self.paymentEnd = paymentEnd
        self.lockChildFeeSat = lockChildFeeSat
        self.lockWithdrawalFeeSat = lockWithdrawalFeeSat
    }

    /// Everything the store holds about `record`'s swap: what `peernode report` reads.
    public static func load(_ record: SwapRecord, from store: any SwapStore) async throws(StoreError) -> SwapHistory {
        let events = try await store.events(of: record.id)
        switch record.role {
        case .client where SwapAccountingEntry.isSubmarine(record.contract):
            // A funding taken back after the provider stopped waiting cost its withdrawal; one
            // lifted by a child cost the child's fee too.
            return SwapHistory(record: record, events: events,
                               lockChildFeeSat: try await SubmarineClientEngine.recordedFundingChildFee(record.id, in: store),
                               lockWithdrawalFeeSat: try await SubmarineClientEngine.recordedFundingWithdrawalFee(record.id,
                                                                                                                 in: store))
        case .client:
            return SwapHistory(record: record, events: events,
                               routingFeeMsat: try await ClientEngine.recordedRoutingFee(record.id, in: store),
                               paymentEnd: try await ClientEngine.recordedPaymentEnd(record.id, in: store))
        case .provider where SwapAccountingEntry.isSubmarine(record.contract):
            // The provider pays the invoice: its routing fee is recorded with the payment.
            return SwapHistory(record: record, events: events,
                               routingFeeMsat: try await SubmarineProviderEngine.recordedRoutingFee(record.id, in: store))
        case .provider:
            return SwapHistory(record: record, events: events,
                               lockChildFeeSat: try await ProviderEngine.recordedLockChildFee(record.id, in: store),
                               lockWithdrawalFeeSat: try await ProviderEngine.recordedLockWithdrawalFee(record.id, in: store))
        }
    }
}
