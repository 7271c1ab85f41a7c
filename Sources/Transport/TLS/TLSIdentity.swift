#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenSSL

/// A TLS server's key and self-signed certificate, made the way LND makes its `tls.cert`:
/// ECDSA on P-256, the certificate its own issuer and a CA (so a client can trust it as
/// the only anchor), the host's IP and `localhost` as subject alternative names, valid
/// for 14 months (LND's default `tlscertduration`). The key never leaves memory: only
/// the certificate is written out, for clients to pin.
///
/// `@unchecked Sendable`: the key and certificate are built in `init` and never changed
/// after it; OpenSSL only reads them (and counts references atomically) when a server
/// context takes them.
public final class TLSIdentity: @unchecked Sendable {
    /// The private key (EVP_PKEY), owned.
    let key: OpaquePointer
    /// The certificate (X509), owned.
    let certificate: OpaquePointer
    /// The certificate's DER bytes (what a client pins and fingerprints).
    public let certificateDER: [UInt8]
    /// The certificate in PEM, as `tls.cert` holds it.
    public let certificatePEM: String

    /// LND's default certificate lifetime: 14 months of 30 days.
    public static let validitySeconds = 14 * 30 * 24 * 3_600

    /// A fresh identity for a server reached at `host` (an IP or a name); `localhost` is
    /// always covered too, like LND's certificate.
    public init(host: String, validitySeconds: Int = TLSIdentity.validitySeconds) throws(TLSError) {
        ERR_clear_error()
        guard let key = peernode_ec_p256_key() else { throw .setupFailed(reason: TLSSession.openSSLErrors()) }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw .setupFailed(reason: TLSSession.openSSLErrors())
        }
        self.key = key
        self.certificate = certificate
        guard Self.fill(certificate, key: key, host: host, validitySeconds: validitySeconds), X509_sign(certificate, key, EVP_sha256()) > 0,
              let der = TLSCertificates.derBytes(certificate), let pem = Self.pem(certificate) else {
            // deinit frees the key and the certificate.
            certificateDER = []
            certificatePEM = ""
            throw .setupFailed(reason: TLSSession.openSSLErrors())
        }
        certificateDER = der
        certificatePEM = pem
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// SHA-256 of the certificate, as `openssl x509 -fingerprint -sha256` prints it.
    public var fingerprint: String { TLSCertificates.fingerprint(certificateDER) }

    /// Writes the certificate to `path` (replacing it), readable by everyone like LND's
    /// `tls.cert`: it is public; the key is not written anywhere.
    public func writeCertificate(to path: String) throws(TLSError) {
        let bytes = Array(certificatePEM.utf8)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .certificateFileUnwritable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw .certificateFileUnwritable(path: path, reason: String(cString: strerror(errno))) }
            offset += written
        }
    }

    /// Serial, names, validity, public key and extensions; false when OpenSSL refused one.
    private static func fill(_ certificate: OpaquePointer, key: OpaquePointer, host: String, validitySeconds: Int) -> Bool {
        // A positive random serial (the system's secure generator), as LND draws one.
        let serial = UInt64.random(in: 1...(UInt64.max >> 1))
        guard X509_set_version(certificate, 2) == 1,  // v3
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial) == 1,
              X509_gmtime_adj(X509_getm_notBefore(certificate), -3_600) != nil,  // an hour's clock skew
              X509_gmtime_adj(X509_getm_notAfter(certificate), validitySeconds) != nil,
              X509_set_pubkey(certificate, key) == 1,
              let name = X509_get_subject_name(certificate),
              X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "peernode regtest hub", -1, -1, 0) == 1,
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, host, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1 else { return false }
        // An IP goes in as IP:, a name as DNS: (what a client checks each against).
        let isIP = host.withCString { text -> Bool in
            var buffer = [UInt8](repeating: 0, count: 16)
            return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
        }
        let names = (isIP ? "IP:\(host)" : "DNS:\(host)") + (host == "localhost" ? "" : ",DNS:localhost")
        return peernode_x509_add_extension(certificate, NID_basic_constraints, "critical,CA:TRUE") == 1
            && peernode_x509_add_extension(certificate, NID_key_usage, "critical,digitalSignature,keyCertSign") == 1
            && peernode_x509_add_extension(certificate, NID_ext_key_usage, "serverAuth") == 1
            && peernode_x509_add_extension(certificate, NID_subject_key_identifier, "hash") == 1
            && peernode_x509_add_extension(certificate, NID_subject_alt_name, names) == 1
    }

    private static func pem(_ certificate: OpaquePointer) -> String? {
        guard let memory = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(memory) }
        guard PEM_write_bio_X509(memory, certificate) == 1 else { return nil }
        let pending = peernode_bio_pending(memory)
        var bytes = [UInt8](repeating: 0, count: pending)
        let read = bytes.withUnsafeMutableBytes { BIO_read(memory, $0.baseAddress, Int32($0.count)) }
        guard read == Int32(pending) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
