/// Why a TLS connection to a backend (LND's REST port) was not made. Each message says
/// what the user can change; none carries a key or a request byte.
public enum TLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The certificate file could not be opened or read.
    case certificateFileUnreadable(path: String, reason: String)
    /// The file holds no PEM certificate (`-----BEGIN CERTIFICATE-----`).
    case certificateFileHasNoCertificate(path: String)
    /// The server's certificate neither chains to the file's nor equals it: another node,
    /// a regenerated `tls.cert`, an expired certificate, or a host name it does not cover.
    case peerCertificateRejected(path: String, reason: String, fileFingerprints: [String], peerFingerprint: String)
    /// The server finished the handshake without a certificate.
    case noPeerCertificate
    /// The server answered the TLS hello in plain HTTP: it serves no TLS on this port.
    case plainHTTPServer(host: String, port: Int)
    /// The handshake failed: a protocol version below the minimum, no common cipher, an
    /// alert from the server; OpenSSL's reason.
    case handshakeFailed(reason: String)
    /// The server closed the connection before the handshake finished.
    case closedDuringHandshake
    /// A record after the handshake could not be decrypted or encrypted; OpenSSL's reason.
    case recordFailed(reason: String)
    /// OpenSSL could not set up the connection (out of memory, a broken library).
    case setupFailed(reason: String)
    /// A server could not write its certificate file (`tls.cert`).
    case certificateFileUnwritable(path: String, reason: String)
    /// A client sent plain HTTP to a TLS server, which answered as LND does and closed.
    case plainHTTPClient
    /// A client did not finish the handshake within the server's limit.
    case handshakeTimedOut(milliseconds: UInt64)

    public var description: String {
        switch self {
        case .certificateFileUnreadable(let path, let reason):
            return "cannot read the TLS certificate file \(path): \(reason); set lnd_tls_cert to LND's tls.cert"
        case .certificateFileHasNoCertificate(let path):
            return "the TLS certificate file \(path) holds no PEM certificate; set lnd_tls_cert to LND's tls.cert"
        case .peerCertificateRejected(let path, let reason, let fileFingerprints, let peerFingerprint):
            let file = fileFingerprints.joined(separator: ", ")
            return "the server's TLS certificate is not the one in \(path) (\(reason)): server SHA-256 \(peerFingerprint), "
                + "file SHA-256 \(file); copy the server's current tls.cert, or check the host"
        case .noPeerCertificate:
            return "the server presented no TLS certificate"
        case .plainHTTPServer(let host, let port):
            return "\(host):\(port) answered the TLS handshake in plain HTTP: it serves no TLS on this port; "
                + "point at LND's TLS REST port, or set lnd_rest_tls=0 for a plain-HTTP endpoint on loopback"
        case .handshakeFailed(let reason):
            return "TLS handshake failed: \(reason)"
        case .closedDuringHandshake:
            return "the server closed the connection during the TLS handshake"
        case .recordFailed(let reason):
            return "TLS connection failed: \(reason)"
        case .setupFailed(let reason):
            return "cannot set up TLS: \(reason)"
        case .certificateFileUnwritable(let path, let reason):
            return "cannot write the TLS certificate file \(path): \(reason); check the directory exists and is writable"
        case .plainHTTPClient:
            return "a client sent plain HTTP to this TLS port; it must connect with TLS, trusting this server's tls.cert"
        case .handshakeTimedOut(let milliseconds):
            return "the client did not finish the TLS handshake within \(milliseconds) ms"
        }
    }
}
