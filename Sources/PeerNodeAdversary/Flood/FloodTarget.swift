import Transport

/// The provider under attack and the kit's event loop: raw TCP or a full peernode/1
/// handshake, bound to a loopback source address so the provider's per-IP and
/// per-network-group budgets see the kit as the host it pretends to be.
struct FloodTarget: Sendable {
    let provider: Pubky
    let host: String
    let port: Int
    let loop: EventLoop

    /// A TCP connection and nothing more (no cryptography on our side).
    func connect(from source: String) async throws -> TCPConnection {
        try await TCPConnection.connect(host: host, port: port, from: source, loop: loop)
    }

    /// An authenticated connection; `dials`, `dial_failures` counted.
    func dial(_ identity: NodeIdentity, from source: String, counters: FloodCounters) async throws -> PeerConnection {
        counters.add("dials")
        do {
            let stream = try await connect(from: source)
            // The handshake closes the stream itself when it fails.
            return try await PeerConnection.dial(over: stream, identity: identity, expecting: provider, sleeper: loop.sleeper)
        } catch {
            counters.add("dial_failures")
            throw error
        }
    }
}
