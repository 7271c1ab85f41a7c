import Offers
import Transport

/// One hostile identity's authenticated connection to the provider, from a chosen
/// loopback source address, dialled again whenever the provider closed it (a refusal,
/// an eviction, a flow-control close): a flood that is kicked out comes straight back.
actor FloodSession {
    let identity: NodeIdentity
    private let target: FloodTarget
    private let source: String
    private let counters: FloodCounters
    private var connection: PeerConnection?

    init(identity: NodeIdentity, target: FloodTarget, source: String, counters: FloodCounters) {
        self.identity = identity
        self.target = target
        self.source = source
        self.counters = counters
    }

    /// The open connection, or a new one.
    func open() async throws -> PeerConnection {
        if let connection, await connection.closedReason == nil { return connection }
        if connection != nil { counters.add("redials") }
        connection = nil
        let fresh = try await target.dial(identity, from: source, counters: counters)
        connection = fresh
        return fresh
    }

    /// The provider's answer, decoded (a Reject included).
    func request(_ bytes: [UInt8], id: String) async throws -> SwapMessage {
        let reply = try await open().request(bytes, id: id, timeoutMilliseconds: 30_000)
        return try SwapMessage(bytes: reply)
    }

    func push(_ bytes: [UInt8]) async throws {
        try await open().push(bytes)
    }

    func close() async {
        await connection?.close()
        connection = nil
    }
}
