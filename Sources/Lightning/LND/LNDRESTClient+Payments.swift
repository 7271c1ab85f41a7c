import Bitcoin
import Transport

/// Outgoing payments: LND's `routerrpc` SendPaymentV2 (`POST /v2/router/send`) and
/// TrackPaymentV2 (`GET /v2/router/track/{payment_hash}`), whose REST forms stream one
/// `{"result": Payment}` line per status.
///
/// LND's gateway answers a refusal made before the payment starts (already paid, in
/// flight, bad request) with an HTTP error status; once it has answered 200, the payment
/// exists in LND's database and goes on whatever happens to the stream. So an error line
/// or an end after the 200 (`routerrpc server shutting down` when LND stops) never means
/// "refused": it is `.paymentStatusUnknown`, and the caller tracks the payment.
extension LNDRESTClient {
    public func payInvoice(paymentRequest: String, feeLimitSat: UInt64, cltvLimit: UInt32,
                           timeoutSeconds: UInt32) -> AsyncThrowingStream<PaymentUpdate, any Error> {
        let body = JSONValue.object([
            "payment_request": .string(paymentRequest),
            "fee_limit_sat": LNDJSON.int64(feeLimitSat),
            "cltv_limit": LNDJSON.int32(cltvLimit),
            "timeout_seconds": LNDJSON.int32(timeoutSeconds),
            "no_inflight_updates": .bool(false),
        ])
        return paymentStream(.post, "/v2/router/send", body: body, what: "payment")
    }

    public func trackPayment(paymentHash: [UInt8]) -> AsyncThrowingStream<PaymentUpdate, any Error> {
        do {
            try Self.check(hash: paymentHash, "payment hash")
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        return paymentStream(.get, "/v2/router/track/" + Self.urlHash(paymentHash), body: nil, what: "payment tracking")
    }

    /// The payment for `paymentHash` as LND tracks it now (`TrackPaymentV2`: the first
    /// update of the stream, which is the current state), or nil when LND never sent one.
    public func paymentStatus(paymentHash: [UInt8]) async throws(LightningBackendError) -> PaymentUpdate.Status? {
        do {
            for try await update in trackPayment(paymentHash: paymentHash) { return update.status }
        } catch let error as LightningBackendError {
            if error.isNotFound { return nil }
            throw error
        } catch {
            throw .unreachable(url: url, reason: "payment tracking stream broke: \(error)")
        }
        throw .paymentStatusUnknown(url: url, reason: "the payment tracking stream ended without an update")
    }

    /// One payment stream, yielding each update until a final one. An error before the
    /// HTTP 200 is thrown as the node gave it; anything after it is `.paymentStatusUnknown`.
    private func paymentStream(_ method: HTTPMethod, _ target: String, body: JSONValue?,
                               what: String) -> AsyncThrowingStream<PaymentUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<PaymentUpdate, any Error>.makeStream()
        let task = Task {
            do {
                let lines = try await self.openStream(method, target, body: body)
                do {
                    for try await line in lines {
                        let update = try Self.paymentUpdate(from: try self.streamResult(line), url: self.url)
                        continuation.yield(update)
                        if update.status.isFinal {
                            continuation.finish()
                            return
                        }
                    }
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    throw LightningBackendError.paymentStatusUnknown(
                        url: self.url, reason: "the \(what) stream broke after LND accepted the request: \(error)")
                }
                throw LightningBackendError.paymentStatusUnknown(
                    url: self.url, reason: "the \(what) stream ended before the payment was final")
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
