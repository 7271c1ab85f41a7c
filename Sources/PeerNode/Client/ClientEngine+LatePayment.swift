import Lightning
import Offers
import Transport

/// A swap's payment can end after the swap does, both ways: a delivered swap ends when its
/// claim confirms, and the provider settles when it learns the preimage, which may be later;
/// a swap that ended while its payment was held (`ClientFundsFate.awaitsPayment`) waits on the
/// provider's cancel, the HTLC's expiry, or a settle. The engine follows such a payment after
/// the swap, and records its end beside the event log.
extension ClientEngine {
    /// Where the end of a held payment is kept (`ClientPaymentEnd`'s raw value).
    public static func paymentEndKey(_ swapID: String) -> String { "client.payment_end.\(swapID)" }

    /// The end recorded for `swapID`'s held payment; nil while none is.
    public static func recordedPaymentEnd(_ swapID: String, in store: any KeyValueStore) async throws(StoreError)
        -> ClientPaymentEnd? {
        guard let bytes = try await store.value(forKey: paymentEndKey(swapID)) else { return nil }
        guard let end = ClientPaymentEnd(rawValue: String(decoding: bytes, as: UTF8.self)) else {
            throw .corrupt("the payment end recorded for swap \(swapID) is not one the node writes")
        }
        return end
    }

    /// Follows a delivered swap's payment until LND's final update records its routing fee.
    /// Nothing to do when the fee is on record already (the usual case: the provider settled
    /// first).
    func followRoutingFee(_ id: String, paymentHash: [UInt8]) {
        follow(id) { engine, store in
            // `track` records the fee with the success, and ends at the payment's final
            // update or when LND has no such payment.
            if (try? await Self.recordedRoutingFee(id, in: store)) == nil {
                _ = await engine.track(id, paymentHash: paymentHash)
            }
        }
    }

    /// Follows the payment of a swap that ended while it was held, until LND reports its
    /// end, and records it: the record's fate said "held" and is never rewritten, so the
    /// books and `swaps` read the end from here (`ClientFundsFate.after`). A payment the
    /// provider settled with no claim made is money lost to it: an `ALARM` line says so.
    func followHeldPayment(_ id: String, paymentHash: [UInt8], paidSat: Int64?) {
        follow(id) { engine, store in
            guard (try? await Self.recordedPaymentEnd(id, in: store)) == nil,
                  case .final(let status) = await engine.track(id, paymentHash: paymentHash) else { return }
            await engine.recordPaymentEnd(id, status, paidSat: paidSat)
        }
    }

    private func follow(_ id: String, _ body: @escaping @Sendable (ClientEngine, any SwapStore) async -> Void) {
        guard paymentWatches[id] == nil else { return }
        let store = self.store
        paymentWatches[id] = Task { [weak self] in
            if let self { await body(self, store) }
            await self?.endPaymentWatch(id)
        }
    }

    private func endPaymentWatch(_ id: String) { paymentWatches[id] = nil }

    private func recordPaymentEnd(_ id: String, _ status: PaymentUpdate.Status, paidSat: Int64?) async {
        let end: ClientPaymentEnd
        switch status {
        case .succeeded: end = .succeeded
        case .failed: end = .failed
        case .inFlight: return
        }
        do {
            try await store.setValue(Array(end.rawValue.utf8), forKey: Self.paymentEndKey(id))
        } catch {
            log("client swap \(id): could not record that its held payment \(end.rawValue): \(error)")
        }
        switch end {
        case .succeeded:
            let amount = paidSat.map { " of \(OffersError.sats($0))" } ?? ""
            log("ALARM client swap \(id): the provider settled the held payment\(amount) after the swap ended "
                + "with no claim; \(ClientFundsFate.lost)")
        case .failed:
            log("client swap \(id): the held payment failed back; \(ClientFundsFate.returned)")
        }
    }

    /// After a restart: the ended swaps whose payment may have ended since, each looked up
    /// once: a delivered swap whose routing fee is not on record (the provider settled
    /// while this node was down), a swap that ended with its payment held and no end on
    /// record. A swap still running records its own; any other ended swap paid nothing.
    func followLatePayments() async {
        guard let records = try? await store.allSwaps(limit: Int(Int32.max)) else { return }
        for record in records where record.role == .client && runs[record.id] == nil && paymentWatches[record.id] == nil
            && !SubmarineClientRecord.isSubmarine(record.contract) {
            guard !Task.isCancelled else { return }
            // The last event first, not the routing fee: a held swap whose provider settled has
            // its fee recorded a moment before its end, and a crash between the two writes
            // must not make it look finished.
            guard let last = try? await store.lastEvent(of: record.id), last.isFinal,
                  let state = try? ClientSwapState(kind: last.kind, data: last.data) else { continue }
            if state.delivered {
                guard (try? await Self.recordedRoutingFee(record.id, in: store)) == nil,
                      let secrets = try? keyChain.secrets(index: record.swapIndex, scheme: record.keyScheme) else { continue }
                followRoutingFee(record.id, paymentHash: secrets.paymentHash)
            } else if state.outcome?.funds.awaitsPayment == true {
                guard (try? await Self.recordedPaymentEnd(record.id, in: store)) == nil,
                      let secrets = try? keyChain.secrets(index: record.swapIndex, scheme: record.keyScheme) else { continue }
                followHeldPayment(record.id, paymentHash: secrets.paymentHash,
                                  paidSat: record.contract["quote"]?["total_sat"]?.int64Value)
            }
        }
    }
}

extension ClientSwapState {
    /// The destination got the coins: the preimage is on chain, so the payment succeeds
    /// once the provider settles, and its routing fee is spent.
    var delivered: Bool { phase == .completed || outcome?.funds == .delivered }
}
