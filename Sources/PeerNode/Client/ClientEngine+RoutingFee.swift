import Lightning

extension ClientEngine {
    /// Where a swap's routing fee is kept (msat, decimal text): the event log has no event
    /// for it, because the payment succeeds when the provider settles, which may come after
    /// the swap's final event. The accounting reads it (`SwapHistory.routingFeeMsat`).
    public static func routingFeeKey(_ swapID: String) -> String { "client.routing_fee_msat.\(swapID)" }

    /// Records what the route cost once the payment succeeded (LND reports it with the
    /// success). A failed write is only noted: the swap is unaffected, its report then
    /// says the fee is not recorded.
    func recordRoutingFee(_ id: String, _ update: PaymentUpdate) async {
        guard case .succeeded = update.status else { return }
        do {
            try await store.setAmount(Int64(clamping: update.feeMsat), forKey: Self.routingFeeKey(id))
        } catch {
            note(id, "could not record the routing fee: \(error)")
        }
    }

    /// The routing fee recorded for `swapID`, msat; nil when none was.
    public static func recordedRoutingFee(_ swapID: String, in store: any KeyValueStore) async throws(StoreError) -> Int64? {
        try await store.amount(forKey: routingFeeKey(swapID), what: "the routing fee recorded for swap \(swapID)")
    }
}
