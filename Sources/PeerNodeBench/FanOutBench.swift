import Transport

/// Benchmark 3: one client sends an offer-sized request to 1,000 distinct nodes served by
/// this process, handshake included.
///
/// Layout: 1,000 identities, each with its own `PeerServer` behind its own `PeerListener`
/// (one TCP port per identity, as real nodes would have), all on the process's one event
/// loop. The client dials each pubky at its port with `PeerDialer` (TCP connect + Noise_XK
/// + pubky check), sends one ~300-byte JSON request, waits for the ~300-byte reply and
/// closes. At most `concurrency` exchanges run at once, as a node fanning out to its
/// contacts would bound them. Latency is per exchange, from the dial to the reply.
struct FanOutBench {
    struct Result {
        var nodes: Int
        var concurrency: Int
        var totalSeconds: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var maxMilliseconds: Double
        var requestBytes: Int
    }

    let nodes: Int
    let concurrency: Int

    func run(loop: EventLoop) async throws -> Result {
        let limits = PeerLimits(channel: ChannelLimits(handshakeTimeoutMilliseconds: 10_000,
                                                       idleTimeoutMilliseconds: 60_000))
        // Setup, not timed: key derivation and 1,000 bound ports.
        var targets: [(pubky: Pubky, port: Int)] = []
        var listeners: [PeerListener] = []
        for index in 0..<nodes {
            let identity = Self.identity(number: UInt32(index))
            let server = PeerServer(identity: identity, sleeper: loop.sleeper, limits: limits,
                                    handlers: PeerHandlers(onRequest: Self.answer))
            let listener = try await PeerListener.start(server: server, loop: loop)
            listeners.append(listener)
            targets.append((identity.pubky, listener.port))
        }
        let client = PeerDialer(identity: Self.identity(number: 0xFFFF_FFFF), loop: loop, limits: limits)
        let requestBytes = Self.offerRequest(id: "offer-0000").count

        var latencies: [Double] = []
        let total = try await timedAsync {
            latencies = try await withThrowingTaskGroup(of: Double.self) { group in
                var next = 0
                var collected: [Double] = []
                collected.reserveCapacity(targets.count)
                func launch(_ index: Int) {
                    let target = targets[index]
                    group.addTask {
                        let start = monotonicNanoseconds()
                        let peer = try await client.dial(target.pubky, host: "127.0.0.1", port: target.port)
                        let id = "offer-\(index)"
                        let reply = try await peer.request(Self.offerRequest(id: id), id: id)
                        let elapsed = Double(monotonicNanoseconds() - start) / 1e6
                        guard reply.count > 200 else { throw BenchFailure("short reply") }
                        await peer.close()
                        return elapsed
                    }
                }
                while next < min(concurrency, targets.count) { launch(next); next += 1 }
                while let latency = try await group.next() {
                    collected.append(latency)
                    if next < targets.count { launch(next); next += 1 }
                }
                return collected
            }
        }
        for listener in listeners { await listener.close() }
        let sorted = latencies.sorted()
        return Result(nodes: nodes, concurrency: concurrency, totalSeconds: total,
                      p50Milliseconds: quantile(sorted, 0.5), p99Milliseconds: quantile(sorted, 0.99),
                      maxMilliseconds: sorted.last ?? 0, requestBytes: requestBytes)
    }

    static func identity(number: UInt32) -> NodeIdentity {
        var seed = [UInt8](repeating: 0x5A, count: NodeSeed.length)
        withUnsafeBytes(of: number.bigEndian) { bytes in
            for index in 0..<4 { seed[index] = bytes[index] }
        }
        // Any 32 bytes are a valid seed.
        return NodeIdentity(seed: try! NodeSeed(bytes: seed))
    }

    /// Shaped like a swap/1 quote request: amounts, an address, a payment hash.
    static func offerRequest(id: String) -> [UInt8] {
        let json = #"{"type":"QuoteRequest","request_id":"\#(id)","version":1,"direction":"ln_to_onchain","#
            + #""amount_sat":250000,"max_fee_sat":2500,"claim_pubkey":"#
            + #""02a1633cafcc01ebfb6d78e39f687a1f0995c62fc95f51ead10a02ee0be551b5dc","#
            + #""payment_hash":"9f2c4bd8e07f2a6ac1e6b6f1e9a5c47f3b2d0e8c7a6b5d4c3b2a1f0e9d8c7b6a","#
            + #""address":"bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"}"#
        return Array(json.utf8)
    }

    /// The server's handler: a quote of about the same size, echoing the request id.
    static let answer: PeerHandlers.RequestHandler = { request, _ in
        let id = requestID(in: request) ?? "unknown"
        let json = #"{"type":"Quote","request_id":"\#(id)","quote_id":"q-7f3a9c21d4e8b605","#
            + #""amount_sat":250000,"fee_sat":1875,"onchain_fee_sat":420,"expires_at":1767225600,"#
            + #""cltv_delta":144,"refund_pubkey":"#
            + #""03b1f2e3d4c5b6a79887766554433221100ffeeddccbbaa99887766554433221100","#
            + #""min_amount_sat":10000,"max_amount_sat":5000000}"#
        return Array(json.utf8)
    }

    /// The request id, by the peer layer's own envelope parser.
    private static func requestID(in message: [UInt8]) -> String? {
        (try? MessageEnvelope.parse(message))?.requestID
    }
}
