import Synchronization

/// A TLS connection (client or server side) over another byte stream (TCP on the event loop): OpenSSL runs
/// on memory buffers, and this type moves the records over the inner stream with its own
/// async reads and writes, so nothing waits on a socket and the HTTP client above sees an
/// ordinary `ByteStream`.
///
/// `connect` returns only once the handshake is complete and the server's certificate is
/// accepted, so no request byte (the macaroon is in the first) is ever written otherwise.
public final class TLSStream: ByteStream {
    private let inner: any ByteStream
    private let session: Mutex<TLSSession>
    /// The protocol version agreed ("TLSv1.3"), for logs and tests.
    public let protocolVersion: String
    /// True when the handshake resumed a session of an earlier connection.
    public let resumed: Bool
    /// A client's context and server ("host:port"), to keep the server's session for the
    /// next connection; nil on the server side.
    private let resumption: (client: TLSClientContext, server: String)?
    /// Set once this connection's session was offered to `resumption`.
    private let sessionKept = Atomic(false)

    private init(inner: any ByteStream, session: sending TLSSession, protocolVersion: String, resumed: Bool = false,
                 resumption: (client: TLSClientContext, server: String)? = nil) {
        self.inner = inner
        self.protocolVersion = protocolVersion
        self.resumed = resumed
        self.resumption = resumption
        self.session = Mutex(session)
    }

    /// The handshake as a client of `host:port` over `inner`, trusting only `anchors`.
    /// On any failure `inner` is closed. A cancelled caller closes `inner`, which ends a
    /// pending read (reads on a `ByteStream` do not observe cancellation themselves).
    public static func connect(over inner: any ByteStream, host: String, port: Int,
                               anchors: TLSCertificates) async throws -> TLSStream {
        let client: TLSClientContext
        do {
            client = try TLSClientContext(anchors: anchors)
        } catch {
            await inner.close()
            throw error
        }
        return try await connect(over: inner, host: host, port: port, client: client)
    }

    /// The same with `client`'s shared settings, resuming a session `client` kept for
    /// `host:port` when it has one, and keeping this connection's for the next.
    public static func connect(over inner: any ByteStream, host: String, port: Int,
                               client: TLSClientContext) async throws -> TLSStream {
        let server = "\(host):\(port)"
        do {
            let session = try TLSSession(host: host, client: client, resuming: client.takeSession(for: server))
            try await withTaskCancellationHandler {
                try await handshake(session, over: inner, host: host, port: port)
            } onCancel: {
                Task { await inner.close() }
            }
            try Task.checkCancellation()
            try session.verifyPeer()
            let version = session.protocolVersion
            let resumed = session.resumed
            return TLSStream(inner: inner, session: session, protocolVersion: version, resumed: resumed,
                             resumption: (client, server))
        } catch {
            await inner.close()
            throw error
        }
    }

    /// The server side over `inner` (a connection a listener accepted): the handshake with
    /// `context`'s identity, then the stream. A client that sends plain HTTP gets LND's
    /// (Go's) answer, "Client sent an HTTP request to an HTTPS server", which the LND client
    /// recognises; one that has not finished the handshake after `timeoutMilliseconds`
    /// is dropped, so an idle socket cannot hold a server task forever. On any failure
    /// `inner` is closed.
    public static func accept(over inner: any ByteStream, context: TLSServerContext, sleeper: any Sleeper,
                              timeoutMilliseconds: UInt64 = 10_000) async throws -> TLSStream {
        // Closing `inner` ends a pending read, which is how the timer stops a stalled handshake.
        let timedOut = Mutex(false)
        let timer = Task {
            guard (try? await sleeper.sleep(milliseconds: timeoutMilliseconds)) != nil, !Task.isCancelled else { return }
            timedOut.withLock { $0 = true }
            await inner.close()
        }
        defer { timer.cancel() }
        do {
            let session = try TLSSession(server: context)
            try await withTaskCancellationHandler {
                try await handshake(session, over: inner, role: .server)
            } onCancel: {
                Task { await inner.close() }
            }
            timer.cancel()
            try Task.checkCancellation()
            if timedOut.withLock({ $0 }) { throw TLSError.handshakeTimedOut(milliseconds: timeoutMilliseconds) }
            let version = session.protocolVersion
            return TLSStream(inner: inner, session: session, protocolVersion: version)
        } catch {
            await inner.close()
            if timedOut.withLock({ $0 }) { throw TLSError.handshakeTimedOut(milliseconds: timeoutMilliseconds) }
            throw error
        }
    }

    /// Go's net/http answer to plain HTTP on a TLS port, which LND's REST proxy sends.
    static let plainHTTPAnswer = Array("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n".utf8)

    private enum Role {
        case client(host: String, port: Int)
        case server
    }

    private static func handshake(_ session: TLSSession, over inner: any ByteStream, host: String, port: Int) async throws {
        try await handshake(session, over: inner, role: .client(host: host, port: port))
    }

    private static func handshake(_ session: TLSSession, over inner: any ByteStream, role: Role) async throws {
        var receivedAny = false
        while true {
            let step = try session.handshake()
            let output = session.takeOutput()
            if !output.isEmpty { try await inner.write(output) }
            if step == .done { return }
            guard let bytes = try await inner.read() else { throw TLSError.closedDuringHandshake }
            if !receivedAny {
                switch role {
                case .client(let host, let port):
                    // A plain HTTP server answers a ClientHello with "HTTP/1.x 400": say so
                    // rather than pass on OpenSSL's "wrong version number".
                    if bytes.starts(with: Array("HTTP/".utf8)) { throw TLSError.plainHTTPServer(host: host, port: port) }
                case .server:
                    // A TLS record starts with 0x16 (handshake); a request line with a
                    // method's capital letter.
                    if let first = bytes.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) {
                        try? await inner.write(plainHTTPAnswer)
                        throw TLSError.plainHTTPClient
                    }
                }
            }
            receivedAny = true
            session.feed(bytes)
        }
    }

    public func read() async throws -> [UInt8]? {
        while true {
            switch try session.withLock({ (session: inout TLSSession) throws(TLSError) -> TLSSession.ReadResult in
                try session.read()
            }) {
            case .plaintext(let bytes):
                keepSessionOnce()
                return bytes
            case .closed: return nil
            case .needsInput: break
            }
            // Anything OpenSSL wants to send while reading (a TLS 1.3 KeyUpdate answer) stays
            // in its buffer and leaves with the next write, which RFC 8446 allows; the reader
            // never writes, so writes to the inner stream keep their order.
            guard let bytes = try await inner.read() else { return nil }
            session.withLock { $0.feed(bytes) }
        }
    }

    /// Offers the server's session to the client's context, once, when the first bytes
    /// from the server are read: a TLS 1.3 server sends its tickets right after the
    /// handshake, so they have been read by then (a server that sends none leaves none).
    private func keepSessionOnce() {
        // The load spares every later read a write to the flag.
        guard let resumption, !sessionKept.load(ordering: .relaxed), !sessionKept.exchange(true, ordering: .relaxed) else { return }
        if let kept = session.withLock({ $0.resumableSession() }) { resumption.client.keep(kept, for: resumption.server) }
    }

    public func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        let records = try session.withLock { (session: inout TLSSession) throws(TLSError) -> [UInt8] in
            try session.write(bytes)
            return session.takeOutput()
        }
        try await inner.write(records)
    }

    public func close() async {
        let closeNotify = session.withLock { session -> [UInt8] in
            session.shutdown()
            return session.takeOutput()
        }
        if !closeNotify.isEmpty { try? await inner.write(closeNotify) }
        await inner.close()
    }
}
