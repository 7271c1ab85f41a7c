import Offers
import Transport

/// The kit's Noise channel to the provider: the same `PeerDialer` and swap/1 messages the
/// daemon's client uses, with none of the client engine's checks in between, so the kit
/// can send what an honest client never would. A connection the provider closed is
/// dialled again on the next request.
actor ProviderSession {
    static let requestTimeoutMilliseconds: UInt64 = 30_000

    private let dialer: PeerDialer
    private let provider: Pubky
    private let host: String
    private let port: Int
    private var connection: PeerConnection?

    init(dialer: PeerDialer, provider: Pubky, host: String, port: Int) {
        self.dialer = dialer
        self.provider = provider
        self.host = host
        self.port = port
    }

    private func open() async throws(KitError) -> PeerConnection {
        if let connection, await connection.closedReason == nil { return connection }
        do {
            let fresh = try await dialer.dial(provider, host: host, port: port)
            connection = fresh
            return fresh
        } catch {
            throw KitError("cannot reach the provider at \(host):\(port): \(error)")
        }
    }

    /// Sends a request and decodes the reply, a Reject included: what the provider said
    /// is the kit's outcome, not an error.
    func request(_ bytes: [UInt8], id: String) async throws(KitError) -> SwapMessage {
        let connection = try await open()
        let reply: [UInt8]
        do {
            reply = try await connection.request(bytes, id: id, timeoutMilliseconds: Self.requestTimeoutMilliseconds)
        } catch {
            throw KitError("no answer from the provider to request \(id): \(error)")
        }
        do {
            return try SwapMessage(bytes: reply)
        } catch {
            throw KitError("the provider's reply does not decode: \(error)")
        }
    }

    func push(_ bytes: [UInt8]) async throws(KitError) {
        let connection = try await open()
        do {
            try await connection.push(bytes)
        } catch {
            throw KitError("push to the provider failed: \(error)")
        }
    }

    /// Where the provider says swap `swapID` stands.
    func status(of swapID: String) async throws(KitError) -> SwapStatusSnapshot {
        let request = SwapStatusRequest(requestID: RandomID.make(), swapID: swapID)
        switch try await self.request(request.encoded, id: request.requestID) {
        case .swapStatusSnapshot(let snapshot): return snapshot
        case .reject(let reject): throw KitError("status of \(swapID) refused: \(reject.code.rawValue): \(reject.reason)")
        default: throw KitError("the provider answered a SwapStatusRequest with something else")
        }
    }

    func close() async {
        await connection?.close()
        connection = nil
    }
}
