import COpenSSL

/// One TLS connection's OpenSSL state, client or server side, with no socket: network bytes go in through
/// one memory BIO and come out of another, so the caller moves them over any `ByteStream`
/// and OpenSSL never blocks or touches a file descriptor. Not thread-safe: `TLSStream`
/// keeps it behind a lock and calls it only synchronously (OpenSSL's error queue is per
/// thread, so every call clears it first and reads it before returning).
final class TLSSession {
    /// The lowest protocol version offered or accepted: TLS 1.2 (LND's own minimum).
    static let minimumVersion = TLS1_2_VERSION

    enum HandshakeStep: Equatable {
        case done
        /// OpenSSL needs more bytes from the server.
        case needsInput
    }

    private let context: OpaquePointer
    private let ssl: OpaquePointer
    /// Bytes from the network, for OpenSSL to read (owned by `ssl`).
    private let networkIn: OpaquePointer
    /// Bytes OpenSSL wrote, for the network (owned by `ssl`).
    private let networkOut: OpaquePointer
    /// A client's only trust anchors; nil on the server side (it asks for no certificate).
    private let anchors: TLSCertificates?

    /// A client for `host` that trusts only `anchors`: nothing from the system's store.
    convenience init(host: String, anchors: TLSCertificates) throws(TLSError) {
        try self.init(host: host, client: TLSClientContext(anchors: anchors), resuming: nil)
    }

    /// A client for `host` with `client`'s settings and anchors, offering `session` (an
    /// owned reference, released here) for resumption.
    init(host: String, client: TLSClientContext, resuming session: OpaquePointer?) throws(TLSError) {
        defer { if let session { SSL_SESSION_free(session) } }
        ERR_clear_error()
        // This session holds its own reference to the shared context, freed in deinit.
        guard SSL_CTX_up_ref(client.context) == 1 else { throw .setupFailed(reason: TLSSession.openSSLErrors()) }
        context = client.context
        anchors = client.anchors
        guard let ssl = SSL_new(context), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_CTX_free(context)
            throw .setupFailed(reason: TLSSession.openSSLErrors())
        }
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        networkIn = input
        networkOut = output
        SSL_set_connect_state(ssl)
        // The host is checked like lncli does: an IP against the IP SANs, a name against
        // the DNS SANs (and sent as SNI).
        if X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) != 1 {
            ERR_clear_error()
            SSL_set1_host(ssl, host)
            peernode_ssl_set_tlsext_host_name(ssl, host)
        }
        // A session OpenSSL will not offer (expired, another version) is simply not used.
        if let session { SSL_set_session(ssl, session) }
        ERR_clear_error()
    }

    /// The accept side of one connection to `server`: SSL_accept's work, done by
    /// `handshake()` over the memory BIOs like the client's.
    init(server: TLSServerContext) throws(TLSError) {
        ERR_clear_error()
        // This session holds its own reference to the shared context, freed in deinit.
        guard SSL_CTX_up_ref(server.context) == 1 else { throw .setupFailed(reason: TLSSession.openSSLErrors()) }
        context = server.context
        anchors = nil
        guard let ssl = SSL_new(context), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_CTX_free(context)
            throw .setupFailed(reason: TLSSession.openSSLErrors())
        }
        SSL_set_bio(ssl, input, output)
        self.ssl = ssl
        networkIn = input
        networkOut = output
        SSL_set_accept_state(ssl)
        ERR_clear_error()
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// Bytes received from the network.
    func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            _ = BIO_write(networkIn, buffer.baseAddress, Int32(buffer.count))
        }
    }

    /// Bytes OpenSSL produced for the network, in order; empty when none.
    func takeOutput() -> [UInt8] {
        let pending = peernode_bio_pending(networkOut)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(networkOut, $0.baseAddress, Int32($0.count)) }
        return Array(bytes.prefix(Int(max(read, 0))))
    }

    /// Advances the handshake with what was fed so far.
    func handshake() throws(TLSError) -> HandshakeStep {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        if SSL_get_error(ssl, result) == SSL_ERROR_WANT_READ { return .needsInput }
        throw .handshakeFailed(reason: TLSSession.openSSLErrors())
    }

    /// A resumable session from this connection's server (an owned reference), or nil when
    /// it has given none yet (TLS 1.3 tickets arrive after the handshake).
    func resumableSession() -> OpaquePointer? {
        guard let session = SSL_get1_session(ssl) else { return nil }
        if SSL_SESSION_is_resumable(session) == 1 { return session }
        SSL_SESSION_free(session)
        return nil
    }

    /// True when the handshake resumed an earlier session.
    var resumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The minimum version the context holds (what the handshake enforces).
    var configuredMinimumVersion: Int32 { Int32(peernode_ssl_ctx_get_min_proto_version(context)) }

    /// The protocol version agreed, e.g. "TLSv1.3".
    var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// Accepts the server when its certificate chains to the file's certificates (the only
    /// anchors) with the host checked, or is byte-equal to one of them and within its
    /// validity period (a pinned certificate: the host name is then what the user chose).
    func verifyPeer() throws(TLSError) {
        guard let anchors else { return }
        guard let peer = SSL_get1_peer_certificate(ssl) else { throw .noPeerCertificate }
        defer { X509_free(peer) }
        var result = Int32(SSL_get_verify_result(ssl))
        // A resumed session carries the verdict of its first handshake, which may predate
        // the certificate's end: its dates are checked again now.
        if resumed, let dates = Self.datesError(peer) { result = dates }
        if result == X509_V_OK { return }
        let der = TLSCertificates.derBytes(peer) ?? []
        let timeError = result == X509_V_ERR_CERT_HAS_EXPIRED || result == X509_V_ERR_CERT_NOT_YET_VALID
        if !timeError && anchors.der.contains(der) { return }
        throw .peerCertificateRejected(path: anchors.path, reason: String(cString: X509_verify_cert_error_string(Int(result))),
                                       fileFingerprints: anchors.fingerprints,
                                       peerFingerprint: TLSCertificates.fingerprint(der))
    }

    /// OpenSSL's error for a certificate outside its validity dates now, or nil inside them
    /// (a date OpenSSL cannot read counts as expired).
    private static func datesError(_ certificate: OpaquePointer) -> Int32? {
        if X509_cmp_current_time(X509_get0_notAfter(certificate)) <= 0 { return X509_V_ERR_CERT_HAS_EXPIRED }
        if X509_cmp_current_time(X509_get0_notBefore(certificate)) >= 0 { return X509_V_ERR_CERT_NOT_YET_VALID }
        return nil
    }

    enum ReadResult: Equatable {
        case plaintext([UInt8])
        /// Nothing decrypted yet: feed more network bytes.
        case needsInput
        /// The server closed the TLS session (close_notify).
        case closed
    }

    /// Decrypts what was fed; all of it that is ready, in one array.
    func read() throws(TLSError) -> ReadResult {
        var plaintext: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            ERR_clear_error()
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                plaintext += chunk.prefix(Int(count))
                continue
            }
            let error = SSL_get_error(ssl, count)
            if !plaintext.isEmpty { return .plaintext(plaintext) }
            switch error {
            case SSL_ERROR_WANT_READ: return .needsInput
            case SSL_ERROR_ZERO_RETURN: return .closed
            default: throw .recordFailed(reason: TLSSession.openSSLErrors())
            }
        }
    }

    /// Encrypts `plaintext`; the records are then in `takeOutput()`. A memory BIO never
    /// refuses bytes, so the whole buffer is written at once.
    func write(_ plaintext: [UInt8]) throws(TLSError) {
        ERR_clear_error()
        let count = plaintext.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        guard count == Int32(plaintext.count) else { throw .recordFailed(reason: TLSSession.openSSLErrors()) }
    }

    /// Queues close_notify.
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// OpenSSL's queued errors as one line, and the queue emptied.
    static func openSSLErrors() -> String {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [UInt8](repeating: 0, count: 256)
            buffer.withUnsafeMutableBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { ERR_error_string_n(code, $0.baseAddress, $0.count) }
            }
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))
        }
        return reasons.isEmpty ? "the connection failed during TLS" : reasons.joined(separator: "; ")
    }
}
