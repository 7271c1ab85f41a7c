import Offers
import Synchronization
import Transport

/// Floods that go for the provider's connection slots.
extension Flood {
    /// Idle TCP connections, re-opened as fast as the provider closes them (it refuses a
    /// host over its share at once, and drops a silent handshake after its timeout). No
    /// cryptography on our side: the cheapest way to hold slots.
    func slotChurn() async {
        let target = target, counters = counters
        await forDuration(workers: options.connections) { index in
            let source = source(index)
            while !Task.isCancelled {
                let stream: TCPConnection
                do {
                    stream = try await target.connect(from: source)
                } catch {
                    counters.add("connect_failures")
                    await Self.pause(milliseconds: 10)
                    continue
                }
                counters.add("opened")
                counters.enter("open")
                do {
                    while try await stream.read() != nil {}
                    counters.add("closed_by_provider")
                } catch {
                    // Cancelled at the end of the flood, or reset by the provider.
                    if !Task.isCancelled { counters.add("closed_by_provider") }
                }
                counters.leave("open")
                await stream.close()
            }
        }
    }

    /// Authenticated connections that each send an OfferRequest every 20 s (the cheapest
    /// traffic that looks alive), spread over `identities` pubkys and the source
    /// addresses; one the provider closes (refused, evicted) is dialled again at once.
    func slotHolders() async {
        let identities = (0..<(options.identities ?? options.connections)).map { _ in NodeIdentity(seed: .generate()) }
        let target = target, counters = counters, network = options.network
        log("\(options.connections) slot holders: \(identities.count) identities from \(options.sources.count) source address(es)")
        await forDuration(workers: options.connections) { index in
            let identity = identities[index % identities.count]
            let source = source(index)
            while !Task.isCancelled {
                let connection: PeerConnection
                do {
                    connection = try await target.dial(identity, from: source, counters: counters)
                } catch {
                    await Self.pause(milliseconds: 250)
                    continue
                }
                counters.add("handshakes_done")
                // Held once the provider answers on it: our side of the handshake ends
                // before the provider has admitted the pubky (or refused it over its share).
                let holding = Mutex(false)
                await withTaskCancellationHandler {
                    while !Task.isCancelled, await connection.closedReason == nil {
                        let request = OfferRequest(requestID: RandomID.make(), network: network.rawValue)
                        if (try? await connection.request(request.encoded, id: request.requestID)) != nil {
                            counters.add("offers_answered")
                            if !holding.withLock({ let was = $0; $0 = true; return was }) { counters.enter("held") }
                        }
                        // Wake often enough to notice an eviction, send only every 20 s.
                        var waited = 0
                        while waited < 20_000, !Task.isCancelled, await connection.closedReason == nil {
                            await Self.pause(milliseconds: 500)
                            waited += 500
                        }
                    }
                } onCancel: {
                    Task { await connection.close() }
                }
                if holding.withLock({ $0 }) {
                    counters.leave("held")
                    if !Task.isCancelled { counters.add("evicted_after_holding") }
                } else if !Task.isCancelled {
                    counters.add("closed_before_holding")
                }
                await connection.close()
            }
        }
    }

    /// Complete handshakes, closed at once, as fast as `connections` workers can: what a
    /// handshake costs the provider, each from a new identity. `responder_bound_us` is the
    /// responder's own cryptography for one handshake, timed in this process right after.
    func handshakeFlood(_ report: inout AttackReport) async {
        let target = target, counters = counters
        await forDuration(workers: options.connections) { index in
            let source = source(index)
            while !Task.isCancelled {
                // A new identity each time, as a flood that wants the provider's CPU would:
                // the provider checks a key it has seen before with a lookup.
                let identity = NodeIdentity(seed: .generate())
                guard let connection = try? await target.dial(identity, from: source, counters: counters) else {
                    await Self.pause(milliseconds: 5)
                    continue
                }
                counters.add("handshakes")
                await connection.close()
            }
        }
        if let bound = try? ResponderBound(responder: NodeIdentity(seed: .generate())).microsecondsPerHandshake() {
            report.set("responder_bound_ns", Int(bound * 1_000))
        }
    }
}
