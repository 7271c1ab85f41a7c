import Bitcoin
import Offers
import Synchronization
import Transport

/// The honest side of a flood benchmark: what a contact that connects fresh and asks for
/// a quote waits, measured again and again while a flood runs (or while nothing does).
extension Flood {
    /// Every `intervalMilliseconds`: TCP connect, handshake, OfferRequest, QuoteRequest,
    /// close. Reports `probes`, `probe_failures` and the latency percentiles in microseconds.
    func probe(_ report: inout AttackReport) async {
        let identity = NodeIdentity(seed: .generate())
        let target = target, counters = counters, network = options.network, amount = options.amountSat
        let interval = options.intervalMilliseconds
        let samples = Mutex<[Int]>([])
        await forDuration(workers: 1) { _ in
            while !Task.isCancelled {
                let started = ContinuousClock.now
                if let failure = await Self.connectAndQuote(identity, target: target, network: network, amount: amount,
                                                            counters: counters) {
                    counters.add("probe_failures")
                    counters.add("probe_failed_" + failure)
                } else {
                    let micros = Int((ContinuousClock.now - started) / .microseconds(1))
                    samples.withLock { $0.append(micros) }
                    counters.add("probes")
                }
                await Self.pause(milliseconds: interval)
            }
        }
        let sorted = samples.withLock { $0 }.sorted()
        if !sorted.isEmpty {
            report.set("p50_us", Self.percentile(sorted, 50))
            report.set("p99_us", Self.percentile(sorted, 99))
            report.set("max_us", sorted[sorted.count - 1])
        }
    }

    /// One honest probe: nil when a signed quote came back, else the step that failed
    /// (`dial`, `offer`, `quote`, or the Reject's code).
    static func connectAndQuote(_ identity: NodeIdentity, target: FloodTarget, network: Network, amount: Int64,
                                counters: FloodCounters) async -> String? {
        guard let connection = try? await target.dial(identity, from: "127.0.0.1", counters: counters) else { return "dial" }
        let failure = await offerAndQuote(over: connection, network: network, amount: amount)
        // Closed before the next probe: connections left closing would count against the
        // probe's own pubky share (4) at the provider.
        await connection.close()
        _ = await connection.waitUntilClosed()
        return failure
    }

    /// An OfferRequest, then a QuoteRequest under that offer: nil when a quote came back.
    static func offerAndQuote(over connection: PeerConnection, network: Network, amount: Int64) async -> String? {
        let offerRequest = OfferRequest(requestID: RandomID.make(), network: network.rawValue)
        let offer: Signed<Offer>
        switch (try? await connection.request(offerRequest.encoded, id: offerRequest.requestID)).flatMap({ try? SwapMessage(bytes: $0) }) {
        case .offer(let signed)?: offer = signed
        case .reject(let reject)?: return "offer_" + reject.code.rawValue
        default: return "offer"
        }
        let quoteRequest = QuoteRequest(requestID: RandomID.make(), offerID: offer.body.offerID, amountSat: amount)
        switch (try? await connection.request(quoteRequest.encoded, id: quoteRequest.requestID)).flatMap({ try? SwapMessage(bytes: $0) }) {
        case .quote?: return nil
        case .reject(let reject)?: return "quote_" + reject.code.rawValue
        default: return "quote"
        }
    }

    /// The nearest-rank percentile of sorted samples.
    static func percentile(_ sorted: [Int], _ p: Int) -> Int {
        let rank = max(1, (p * sorted.count + 99) / 100)
        return sorted[min(rank, sorted.count) - 1]
    }
}
