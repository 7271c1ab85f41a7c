extension ClientEngine {
    /// Follows a delivered swap's payment after the swap ended, until LND's final update
    /// records its routing fee. The swap ends when its claim confirms; the provider settles
    /// when it learns the preimage, which may be later (it was down, or slow), and only
    /// then does the payment succeed and its fee become known. Nothing to do when the fee
    /// is on record already (the usual case: the provider settled first).
    func followRoutingFee(_ id: String, paymentHash: [UInt8]) {
        guard feeWatches[id] == nil else { return }
        let store = self.store
        feeWatches[id] = Task { [weak self] in
            // `track` records the fee with the success, and ends at the payment's final
            // update or when LND has no such payment.
            if (try? await Self.recordedRoutingFee(id, in: store)) == nil {
                _ = await self?.track(id, paymentHash: paymentHash)
            }
            await self?.endFeeWatch(id)
        }
    }

    private func endFeeWatch(_ id: String) { feeWatches[id] = nil }

    /// After a restart: the delivered swaps whose fee is not on record (the provider
    /// settled while this node was down) have their payment looked up, each once. A swap
    /// still running records its own fee; a failed swap paid none (its payment returns).
    func followUnrecordedRoutingFees() async {
        guard let records = try? await store.allSwaps(limit: Int(Int32.max)) else { return }
        for record in records where record.role == .client && runs[record.id] == nil && feeWatches[record.id] == nil
            && !SubmarineClientRecord.isSubmarine(record.contract) {
            guard !Task.isCancelled else { return }
            guard (try? await Self.recordedRoutingFee(record.id, in: store)) == nil,
                  let last = try? await store.lastEvent(of: record.id), last.isFinal,
                  let state = try? ClientSwapState(kind: last.kind, data: last.data), state.delivered,
                  let secrets = try? keyChain.secrets(index: record.swapIndex, scheme: record.keyScheme) else { continue }
            followRoutingFee(record.id, paymentHash: secrets.paymentHash)
        }
    }
}

extension ClientSwapState {
    /// The destination got the coins: the preimage is on chain, so the payment succeeds
    /// once the provider settles, and its routing fee is spent.
    var delivered: Bool { phase == .completed || outcome?.funds == .delivered }
}
