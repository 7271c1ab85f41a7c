import COpenSSL
import Synchronization

/// The OpenSSL settings every client connection trusting one set of certificates shares:
/// the anchors in the store, TLS 1.2 as the lowest version, and the sessions servers gave
/// for resumption. Building an SSL_CTX and its store costs more than a TLS 1.3
/// handshake's own cryptography in OpenSSL 3, so a connector builds one per certificate
/// file's contents (`TLSHTTPConnector`), not one per connection.
///
/// Resumption: a connection to a server it has a session for offers that session
/// (TLS 1.3 PSK with a fresh ECDHE), which spares the certificate's signature on both
/// sides and the chain's check. A session is kept only from a connection whose certificate
/// was accepted (`TLSStream` offers it after `verifyPeer`), is used once (RFC 8446 C.4),
/// and dies with this context, so a new certificate file never resumes a session of the
/// old one. A resumed session carries the certificate and verdict of its first handshake;
/// `verifyPeer` takes that verdict and checks the certificate's dates again, since it may
/// have expired since.
///
/// `@unchecked Sendable`: the SSL_CTX is configured in `init` and only read afterwards
/// (OpenSSL allows `SSL_new` on one context from many threads); sessions sit behind a lock.
public final class TLSClientContext: @unchecked Sendable {
    /// Sessions kept per server: a burst of connections opened together each leave one.
    static let sessionsPerServer = 4

    let context: OpaquePointer
    public let anchors: TLSCertificates
    /// Owned references to resumable sessions, by "host:port", newest last.
    private let sessions = Mutex<[String: [KeptSession]]>([:])

    /// One owned reference to an SSL_SESSION. `@unchecked Sendable`: a session is
    /// reference-counted and immutable once complete; OpenSSL lets threads share it.
    private struct KeptSession: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    public init(anchors: TLSCertificates) throws(TLSError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw .setupFailed(reason: TLSSession.openSSLErrors()) }
        guard peernode_ssl_ctx_set_min_proto_version(context, TLSSession.minimumVersion) == 1 else {
            SSL_CTX_free(context)
            throw .setupFailed(reason: "cannot set the minimum TLS version")
        }
        // The result is checked after the handshake (`TLSSession.verifyPeer`), before any
        // request byte is written, so the refusal can name both fingerprints; OpenSSL still
        // builds and checks the chain and records its verdict.
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        let store = SSL_CTX_get_cert_store(context)
        for der in anchors.der {
            let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_X509(nil, &cursor, buffer.count)
            }
            guard let certificate else { continue }
            X509_STORE_add_cert(store, certificate)
            X509_free(certificate)
        }
        // A leaf certificate in the file is an anchor by itself (LND's is self-signed, but
        // a user may pin a leaf issued by a CA the node does not have).
        X509_STORE_set_flags(store, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        ERR_clear_error()
        self.context = context
        self.anchors = anchors
    }

    deinit {
        sessions.withLock { sessions in
            for session in sessions.values.joined() { SSL_SESSION_free(session.pointer) }
        }
        SSL_CTX_free(context)
    }

    /// A session to offer `server` ("host:port"), removed from the store: the caller owns
    /// the reference.
    func takeSession(for server: String) -> OpaquePointer? {
        sessions.withLock { $0[server]?.popLast() }?.pointer
    }

    /// Keeps `session` (an owned reference) for the next connection to `server`.
    func keep(_ session: OpaquePointer, for server: String) {
        let session = KeptSession(pointer: session)
        let dropped = sessions.withLock { sessions -> KeptSession? in
            var kept = sessions[server] ?? []
            kept.append(session)
            let dropped = kept.count > Self.sessionsPerServer ? kept.removeFirst() : nil
            sessions[server] = kept
            return dropped
        }
        if let dropped { SSL_SESSION_free(dropped.pointer) }
    }

    /// How many sessions are kept for `server` (tests).
    func keptSessions(for server: String) -> Int {
        sessions.withLock { $0[server]?.count ?? 0 }
    }
}
