import Bitcoin
import Lightning
import Transport

/// Pays a contact's checked invoice straight from the Lightning balance: the
/// `direct_lightning` route of `pay` (docs/ROUTING.md). No swap and no counterparty but
/// the payee, so no state machine: one record written before the payment starts (so a
/// payment is never out without `swaps` showing it), then its outcome as LND reports it.
///
/// A payment LND accepted may complete whatever happens to this process, so nothing
/// here treats an interruption as a failure: a stream that breaks is followed with
/// `trackPayment`; if LND cannot be asked, the record stays `in_flight` and
/// `settleInFlight` reads the outcome later (`swaps`, `report`).
struct DirectLightningPayment: Sendable {
    let lightning: any LightningBackend
    let store: SQLiteSwapStore
    let nowUnix: @Sendable () -> UInt64
    /// How long LND looks for a route before it gives up (its `timeout_seconds`).
    static let routeTimeoutSeconds: UInt32 = 60

    /// What the command reports once the payment is final.
    struct Outcome: Sendable {
        let record: [String: JSONValue]
        let paid: Bool
    }

    /// Records and sends the payment of `bolt11` (X sat to `paymentHash`); the most the
    /// route may cost is `feeLimitSat`. Returns the final record; throws only when the
    /// payment could not be recorded (nothing sent) or its outcome is not known yet.
    func pay(bolt11: String, paymentHash: [UInt8], amountSat: Int64, feeLimitSat: Int64, contact: String, contactPubky: String,
             progress: @Sendable (String) -> Void) async throws(ControlError) -> Outcome {
        var record: [String: JSONValue] = [
            "route": .string("direct_lightning"), "status": .string("in_flight"), "contact": .string(contact),
            "contact_pubky": .string(contactPubky), "amount_sat": .integer(amountSat),
            "payment_hash": .string(paymentHash.hex), "fee_limit_sat": .integer(feeLimitSat),
            "at": .integer(Int64(clamping: nowUnix())),
        ]
        let index: Int64
        do {
            index = try await DirectPayments.record(.object(record), in: store)
        } catch {
            throw .failed("the payment could not be recorded (\(error)); nothing was paid")
        }
        let final = await send(bolt11: bolt11, paymentHash: paymentHash, feeLimitSat: feeLimitSat, progress: progress)
        guard let final else {
            throw ControlError(code: "payment_in_flight",
                               message: "LND accepted the payment of \(contact)'s invoice but its outcome could not be read; "
                                   + "it may still complete: `peernode swaps` shows it (payment hash \(paymentHash.hex))")
        }
        Self.apply(final, to: &record)
        try? await DirectPayments.update(index, to: .object(record), in: store)
        return Outcome(record: record, paid: record["status"]?.stringValue == "paid")
    }

    /// The final update for the payment, or nil when it is not known (LND unreachable).
    private func send(bolt11: String, paymentHash: [UInt8], feeLimitSat: Int64,
                      progress: @Sendable (String) -> Void) async -> PaymentUpdate? {
        do {
            for try await update in lightning.payInvoice(paymentRequest: bolt11, feeLimitSat: UInt64(feeLimitSat), cltvLimit: 0,
                                                         timeoutSeconds: Self.routeTimeoutSeconds) {
                if update.status.isFinal { return update }
                progress("the payment is in flight")
            }
        } catch let error as LightningBackendError where error.isUnreachable {
            // Before LND answered: it may not have the payment at all. Ask.
            progress("LND could not be reached (\(error)); asking it whether it has the payment")
        } catch {
            progress("the payment stream ended (\(error)); following the payment")
        }
        return await track(paymentHash)
    }

    /// Follows the payment to its end; nil when LND cannot tell. A payment LND never
    /// started is a failure with nothing sent.
    private func track(_ paymentHash: [UInt8]) async -> PaymentUpdate? {
        do {
            for try await update in lightning.trackPayment(paymentHash: paymentHash) where update.status.isFinal {
                return update
            }
        } catch let error as LightningBackendError {
            if case .lnd = error, !error.isAlreadyExists {
                // `isNotFound`: the node never sent it.
                return PaymentUpdate(paymentHash: paymentHash, status: .failed(.error), amountMsat: 0, feeMsat: 0)
            }
        } catch {}
        return nil
    }

    static func apply(_ update: PaymentUpdate, to record: inout [String: JSONValue]) {
        switch update.status {
        case .succeeded(let preimage):
            record["status"] = .string("paid")
            // The payer's proof of payment; the payment is settled, so it is no one's secret.
            record["preimage"] = .string(preimage.hex)
            record["routing_fee_msat"] = .integer(Int64(clamping: update.feeMsat))
            record["total_msat"] = .integer(Int64(clamping: update.amountMsat + update.feeMsat))
        case .failed(let reason):
            record["status"] = .string("failed")
            record["reason"] = .string(reason.description)
        case .inFlight:
            break
        }
    }

    /// Reads the outcome of every direct Lightning payment still recorded `in_flight` (a
    /// command interrupted, LND unreachable) and records it.
    static func settleInFlight(store: SQLiteSwapStore, lightning: any LightningBackend) async {
        guard let payments = try? await DirectPayments.newest(Int(Int32.max), in: store) else { return }
        for (index, payment) in payments {
            guard case .object(var record) = payment, record["route"]?.stringValue == "direct_lightning",
                  record["status"]?.stringValue == "in_flight",
                  let hashHex = record["payment_hash"]?.stringValue, let hash = [UInt8](hex: hashHex) else { continue }
            let status: PaymentUpdate.Status?
            do { status = try await lightning.paymentStatus(paymentHash: hash) } catch { continue }
            // Never sent: the command stopped between the record and the payment.
            let update = PaymentUpdate(paymentHash: hash, status: status ?? .failed(.error), amountMsat: 0, feeMsat: 0)
            guard update.status.isFinal else { continue }
            apply(update, to: &record)
            try? await DirectPayments.update(index, to: .object(record), in: store)
        }
    }
}
