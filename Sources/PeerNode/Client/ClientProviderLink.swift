import Offers
import Transport

/// Opens an authenticated connection to a provider contact, serving `handlers` on it (the
/// provider pushes status updates over the connection the client dialled). TCP through
/// `PeerDialer` in the daemon; in-memory or loopback pairs in tests.
public typealias ClientProviderConnector = @Sendable (_ contact: Offers.Contact, _ handlers: PeerHandlers) async throws -> PeerConnection

extension PeerDialer {
    /// A connector that dials contacts over TCP with this dialer's identity and limits.
    public var clientConnector: ClientProviderConnector {
        let base = self
        return { contact, handlers in
            var dialer = base
            dialer.handlers = handlers
            return try await dialer.dial(contact.pubky, host: contact.host, port: Int(contact.port))
        }
    }
}

/// The client's channel to one provider: requests with replies, pushes both ways, the
/// provider's own requests (`onRequest`: a submarine provider asking its client to co-sign
/// its claim, over the connection the client dialled), and, while swaps with this provider
/// are live, a connection kept open by redialling with backoff, after which `onReconnect`
/// asks for the status of every swap (a status update missed while disconnected is not lost).
actor ClientProviderLink {
    let contact: Offers.Contact
    private let connector: ClientProviderConnector
    private let sleeper: any Sleeper
    private let initialBackoff: UInt64
    private let maximumBackoff: UInt64
    private let onPush: @Sendable ([UInt8]) async -> Void
    private let onRequest: (@Sendable ([UInt8]) async -> [UInt8])?
    private let onReconnect: @Sendable () async -> Void
    private var connection: PeerConnection?
    /// The dial in progress: callers that come while it runs wait for it rather than dial
    /// again (the actor lets them in while it waits), so payments that start together
    /// share one connection and stay within the provider's per-pubky share.
    private var dialing: Task<PeerConnection, any Error>?
    private var supervisor: Task<Void, Never>?
    /// Requests and pushes under way. A payment quotes over the link before its swap
    /// exists, so the end of the provider's last swap may `stop` the link while a quote is
    /// in flight: the connection then stays open until the last of them ends.
    private var inUse = 0
    /// Set by `stop`: the connection closes as soon as nothing uses it.
    private var stopped = false

    init(contact: Offers.Contact, connector: @escaping ClientProviderConnector, sleeper: any Sleeper,
         initialBackoffMilliseconds: UInt64, maximumBackoffMilliseconds: UInt64,
         onPush: @escaping @Sendable ([UInt8]) async -> Void, onReconnect: @escaping @Sendable () async -> Void,
         onRequest: (@Sendable ([UInt8]) async -> [UInt8])? = nil) {
        self.contact = contact
        self.connector = connector
        self.sleeper = sleeper
        initialBackoff = initialBackoffMilliseconds
        maximumBackoff = maximumBackoffMilliseconds
        self.onPush = onPush
        self.onRequest = onRequest
        self.onReconnect = onReconnect
    }

    /// The open connection, dialling when there is none.
    func open() async throws(ClientEngineError) -> PeerConnection {
        if let connection, await connection.closedReason == nil { return connection }
        let task: Task<PeerConnection, any Error>
        if let running = dialing {
            task = running
        } else {
            let push = onPush
            // Without a request handler, a request from the provider is read as a push (and dropped).
            var handlers = PeerHandlers(onPush: { message, _ in await push(message) })
            if let serve = onRequest { handlers.onRequest = { message, _ in await serve(message) } }
            let connector = self.connector, contact = self.contact
            task = Task { try await connector(contact, handlers) }
            dialing = task
        }
        do {
            let fresh = try await task.value
            if dialing == task {
                connection = fresh
                dialing = nil
            }
            return fresh
        } catch {
            if dialing == task { dialing = nil }
            throw .provider("cannot reach \(contact): \(error)")
        }
    }

    /// Sends a request and decodes the reply; a Reject becomes `.rejected`.
    func request(_ bytes: [UInt8], id: String, timeoutMilliseconds: UInt64) async throws(ClientEngineError) -> SwapMessage {
        let reply = try await withConnection { connection async throws(ClientEngineError) -> [UInt8] in
            do {
                return try await connection.request(bytes, id: id, timeoutMilliseconds: timeoutMilliseconds)
            } catch {
                throw .provider("no answer from \(self.contact): \(error)")
            }
        }
        let message: SwapMessage
        do {
            message = try SwapMessage(bytes: reply)
        } catch {
            throw .offers(error)
        }
        if case .reject(let reject) = message { throw .rejected(reject.code, reason: reject.reason) }
        return message
    }

    /// Sends a push; the caller decides whether a failure matters.
    func push(_ bytes: [UInt8]) async throws(ClientEngineError) {
        try await withConnection { connection async throws(ClientEngineError) in
            do {
                try await connection.push(bytes)
            } catch {
                throw .provider("push to \(self.contact) failed: \(error)")
            }
        }
    }

    /// Runs `body` on the open connection (dialling when there is none), counted in
    /// `inUse` from before the dial to its end; on a stopped link, the last use closes it.
    private func withConnection<T: Sendable>(
        _ body: (PeerConnection) async throws(ClientEngineError) -> T
    ) async throws(ClientEngineError) -> T {
        inUse += 1
        let result: Result<T, ClientEngineError>
        do {
            result = .success(try await body(try await open()))
        } catch {
            result = .failure(error)
        }
        inUse -= 1
        if stopped && inUse == 0 { await closeConnection() }
        return try result.get()
    }

    /// Keeps the connection open (redialling with backoff) until `stop`.
    func keepOpen() {
        guard supervisor == nil else { return }
        supervisor = Task { await self.supervise() }
    }

    /// Stops redialling and closes the connection, at once or, while a request or push
    /// uses it, when the last of them ends.
    func stop() async {
        stopped = true
        supervisor?.cancel()
        supervisor = nil
        if inUse == 0 { await closeConnection() }
    }

    private func closeConnection() async {
        let closing = connection
        connection = nil
        await closing?.close()
    }

    private func supervise() async {
        var backoff = initialBackoff
        var first = true
        while !Task.isCancelled {
            do {
                let live = try await open()
                if !first { await onReconnect() }
                first = false
                backoff = initialBackoff
                _ = await live.waitUntilClosed()
            } catch {
                // Unreachable for now: wait and try again.
            }
            guard !Task.isCancelled else { return }
            do { try await sleeper.sleep(milliseconds: backoff) } catch { return }
            backoff = min(maximumBackoff, backoff * 2)
            first = false
        }
    }
}
