import Bitcoin
import Transport

/// Outgoing payments: LND's `routerrpc` SendPaymentV2 (`POST /v2/router/send`), whose
/// REST form streams one `{"result": Payment}` line per status.
extension LNDRESTClient {
    public func payInvoice(paymentRequest: String, feeLimitSat: UInt64, cltvLimit: UInt32,
                           timeoutSeconds: UInt32) -> AsyncThrowingStream<PaymentUpdate, any Error> {
        let (stream, continuation) = AsyncThrowingStream<PaymentUpdate, any Error>.makeStream()
        let body = JSONValue.object([
            "payment_request": .string(paymentRequest),
            "fee_limit_sat": LNDJSON.int64(feeLimitSat),
            "cltv_limit": LNDJSON.int32(cltvLimit),
            "timeout_seconds": LNDJSON.int32(timeoutSeconds),
            "no_inflight_updates": .bool(false),
        ])
        let task = Task {
            do {
                let lines = try await self.openStream(.post, "/v2/router/send", body: body)
                do {
                    for try await line in lines {
                        let update = try Self.paymentUpdate(from: try self.streamResult(line), url: self.url)
                        continuation.yield(update)
                        if update.status.isFinal {
                            continuation.finish()
                            return
                        }
                    }
                } catch let error as LightningBackendError {
                    throw error
                } catch {
                    throw LightningBackendError.unreachable(url: self.url, reason: "payment update stream broke: \(error)")
                }
                // The payment may still complete: the caller must look again before
                // treating it as failed.
                throw LightningBackendError.unreachable(url: self.url,
                                                        reason: "payment update stream ended before the payment was final")
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The payment for `paymentHash` as LND tracks it now (`TrackPaymentV2`: the first
    /// update of the stream, which is the current state), or nil when LND never sent one.
    public func paymentStatus(paymentHash: [UInt8]) async throws(LightningBackendError) -> PaymentUpdate.Status? {
        try Self.check(hash: paymentHash, "payment hash")
        let lines: HTTPLineSequence
        do {
            lines = try await openStream(.get, "/v2/router/track/" + Self.urlHash(paymentHash))
        } catch .lnd(code: LNDStatusCode.notFound.rawValue, message: _, httpStatus: _) {
            return nil
        }
        do {
            for try await line in lines {
                return try Self.paymentUpdate(from: try streamResult(line), url: url).status
            }
        } catch let error as LightningBackendError {
            throw error
        } catch {
            throw .unreachable(url: url, reason: "payment tracking stream broke: \(error)")
        }
        throw .unreachable(url: url, reason: "payment tracking stream ended without an update")
    }
}
