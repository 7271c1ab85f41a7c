import Bitcoin
import Lightning

/// The kit's payment of the hold invoice, followed in the background: the provider holds
/// it until it settles (it learned the preimage) or cancels (it took its lock back), and
/// which of the two happened is the point of every attack.
actor PaymentWatch {
    enum State: String {
        case notStarted = "not_started"
        case inFlight = "in_flight"
        case succeeded
        case failed
        /// The stream broke before a final status; the hub's books decide.
        case unknown
    }

    private(set) var state: State = .notStarted
    private(set) var detail = ""
    private var task: Task<Void, Never>?

    /// Starts paying `invoice` with a fee and CLTV allowance like the daemon's client
    /// (1 sat + 1,000 ppm; the invoice's delta + 216 blocks).
    func start(_ lightning: LNDRESTClient, invoice: String, totalSat: Int64, cltvDelta: UInt64) {
        let feeLimit = UInt64(1 + (totalSat * 1_000 + 999_999) / 1_000_000)
        let stream = lightning.payInvoice(paymentRequest: invoice, feeLimitSat: feeLimit,
                                          cltvLimit: UInt32(clamping: cltvDelta + 216), timeoutSeconds: 60)
        state = .inFlight
        task = Task {
            do {
                for try await update in stream { self.record(update.status) }
            } catch {
                self.broke("\(error)")
            }
        }
    }

    private func record(_ status: PaymentUpdate.Status) {
        switch status {
        case .inFlight: state = .inFlight
        case .succeeded(let preimage):
            state = .succeeded
            detail = "preimage \(preimage.hex)"
        case .failed(let reason):
            state = .failed
            detail = "\(reason)"
        }
    }

    private func broke(_ reason: String) {
        if state == .inFlight {
            state = .unknown
            detail = reason
        }
    }

    /// Waits up to `seconds` for a final status; the state then.
    func waitFinal(seconds: UInt64) async -> State {
        var waited: UInt64 = 0
        while state == .inFlight && waited < seconds * 10 {
            try? await Task.sleep(nanoseconds: 100_000_000)
            waited += 1
        }
        return state
    }
}
