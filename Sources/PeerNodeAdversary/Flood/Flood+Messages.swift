import Offers
import Transport

/// Floods that go for what a provider holds per message: live quotes, log lines, fresh
/// addresses.
extension Flood {
    /// `count` QuoteRequests from one identity, at most `inFlight` waiting at once: the
    /// per-peer quote share (100 live quotes) and request rate should refuse most of them
    /// with `rate_limited`, and nobody else should notice.
    func quoteFlood() async {
        let session = FloodSession(identity: NodeIdentity(seed: .generate()), target: target, source: source(0),
                                   counters: counters)
        let offer = OfferRequest(requestID: RandomID.make(), network: options.network.rawValue)
        guard case .offer(let signed)? = try? await session.request(offer.encoded, id: offer.requestID) else {
            log("no offer: the quote flood cannot start")
            counters.add("no_offer")
            return
        }
        let offerID = signed.body.offerID, amount = options.amountSat, total = options.count, counters = counters
        let issued = FloodCounters()
        await forDuration(workers: options.inFlight) { _ in
            while !Task.isCancelled {
                issued.add("n")
                guard issued.count("n") <= total else { return }
                let request = QuoteRequest(requestID: RandomID.make(), offerID: offerID, amountSat: amount)
                counters.add("quote_requests")
                switch try? await session.request(request.encoded, id: request.requestID) {
                case .quote?: counters.add("quotes_granted")
                case .reject(let reject)?: counters.add("rejected_" + reject.code.rawValue)
                default: counters.add("no_answer")
                }
            }
        }
        await session.close()
    }

    /// PreimagePushes for swaps that do not exist, each id carrying a newline and a fake
    /// log line, as fast as `connections` sessions can push them.
    func pushFlood() async {
        let target = target, counters = counters, sources = options.sources
        await forDuration(workers: options.connections) { index in
            let session = FloodSession(identity: NodeIdentity(seed: .generate()), target: target,
                                       source: sources[index % sources.count], counters: counters)
            var sequence = 0
            while !Task.isCancelled {
                sequence += 1
                let push = PreimagePush(swapID: "x\(index)-\(sequence)\n\(Self.forgedLine)",
                                        preimage: (0..<32).map { _ in UInt8.random(in: 0...255) })
                do {
                    try await session.push(push.encoded)
                    counters.add("pushes")
                } catch {
                    counters.add("push_failures")
                    await Self.pause(milliseconds: 20)
                }
            }
            await session.close()
        }
    }

    /// EndpointsRequests, each worker a fresh identity every `perIdentity` requests (the
    /// wallet hands one asker the same unpaid address, so only new askers cost it a key).
    /// The last address handed out goes in the report: the runner pays it and checks the
    /// wallet still finds the coin after a restart (audit M-6).
    func addressFlood(_ report: inout AttackReport) async {
        let target = target, counters = counters, sources = options.sources
        let perIdentity = 5
        let last = LastAddress()
        await forDuration(workers: options.connections) { index in
            while !Task.isCancelled {
                let session = FloodSession(identity: NodeIdentity(seed: .generate()), target: target,
                                           source: sources[index % sources.count], counters: counters)
                for _ in 0..<perIdentity where !Task.isCancelled {
                    let request = EndpointsRequest(requestID: RandomID.make())
                    switch try? await session.request(request.encoded, id: request.requestID) {
                    case .endpoints(let endpoints)?:
                        counters.add("addresses")
                        if let address = endpoints.endpoints.first?.address { last.set(address) }
                    case .reject(let reject)?: counters.add("rejected_" + reject.code.rawValue)
                    default: counters.add("no_answer")
                    }
                }
                counters.add("askers")
                await session.close()
            }
        }
        if let address = last.value { report.set("last_address", address) }
    }
}
