import Transport

/// Invoice updates: LND's SubscribeSingleInvoice stream, with lookups to cover for it
/// whenever it breaks.
extension LNDRESTClient {
    public func subscribeInvoice(paymentHash: [UInt8]) -> AsyncThrowingStream<InvoiceStatus, any Error> {
        let (stream, continuation) = AsyncThrowingStream<InvoiceStatus, any Error>.makeStream()
        let task = Task {
            do {
                try await self.followInvoice(paymentHash: paymentHash, continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Yields each new state until a final one. Each round opens the subscription (LND
    /// sends the current state first, then changes); when it fails or breaks, one lookup
    /// catches what was missed, and the next round follows after a pause. So while the
    /// stream keeps failing this is polling at `subscriptionRetryMilliseconds`. Only an
    /// answer that will not change by retrying (unknown invoice, refused macaroon) ends it.
    private func followInvoice(paymentHash: [UInt8],
                               _ continuation: AsyncThrowingStream<InvoiceStatus, any Error>.Continuation) async throws {
        try Self.check(hash: paymentHash, "payment hash")
        var last: InvoiceStatus?
        /// Yields a state not yet seen; true once it is final.
        func deliver(_ status: InvoiceStatus) -> Bool {
            if status != last {
                continuation.yield(status)
                last = status
            }
            return status.state.isFinal
        }

        while !Task.isCancelled {
            do {
                let opened = try await openStream(.get, "/v2/invoices/subscribe/\(Self.urlHash(paymentHash))")
                // Bounded: a silent subscription (an invoice LND does not know) is given
                // up for the lookup below, which says what became of the invoice.
                let lines = LNDFirstLineDeadline.lines(opened, milliseconds: configuration.requestTimeoutMilliseconds,
                                                       sleeper: sleeper, url: url)
                for try await line in lines {
                    if deliver(try Self.invoiceStatus(from: try streamResult(line), url: url)) { return }
                }
            } catch {
                // Whatever broke the stream, the lookup below says whether to go on.
            }
            do {
                if deliver(try await lookupInvoice(paymentHash: paymentHash)) { return }
            } catch {
                guard error.isUnreachable else { throw error }
            }
            try await sleeper.sleep(milliseconds: configuration.subscriptionRetryMilliseconds)
        }
        throw CancellationError()
    }
}
