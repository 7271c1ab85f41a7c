import Synchronization

/// A TLS client connection over another byte stream (TCP on the event loop): OpenSSL runs
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

    private init(inner: any ByteStream, session: sending TLSSession, protocolVersion: String) {
        self.inner = inner
        self.protocolVersion = protocolVersion
        self.session = Mutex(session)
    }

    /// The handshake as a client of `host:port` over `inner`, trusting only `anchors`.
    /// On any failure `inner` is closed. A cancelled caller closes `inner`, which ends a
    /// pending read (reads on a `ByteStream` do not observe cancellation themselves).
    public static func connect(over inner: any ByteStream, host: String, port: Int,
                               anchors: TLSCertificates) async throws -> TLSStream {
        do {
            let session = try TLSSession(host: host, anchors: anchors)
            try await withTaskCancellationHandler {
                try await handshake(session, over: inner, host: host, port: port)
            } onCancel: {
                Task { await inner.close() }
            }
            try Task.checkCancellation()
            try session.verifyPeer()
            let version = session.protocolVersion
            return TLSStream(inner: inner, session: session, protocolVersion: version)
        } catch {
            await inner.close()
            throw error
        }
    }

    private static func handshake(_ session: TLSSession, over inner: any ByteStream, host: String, port: Int) async throws {
        var receivedAny = false
        while true {
            let step = try session.handshake()
            let output = session.takeOutput()
            if !output.isEmpty { try await inner.write(output) }
            if step == .done { return }
            guard let bytes = try await inner.read() else { throw TLSError.closedDuringHandshake }
            // A plain HTTP server answers a ClientHello with "HTTP/1.x 400": say so rather
            // than pass on OpenSSL's "wrong version number".
            if !receivedAny && bytes.starts(with: Array("HTTP/".utf8)) { throw TLSError.plainHTTPServer(host: host, port: port) }
            receivedAny = true
            session.feed(bytes)
        }
    }

    public func read() async throws -> [UInt8]? {
        while true {
            switch try session.withLock({ (session: inout TLSSession) throws(TLSError) -> TLSSession.ReadResult in
                try session.read()
            }) {
            case .plaintext(let bytes): return bytes
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
