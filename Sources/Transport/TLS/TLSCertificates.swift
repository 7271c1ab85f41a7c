#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenSSL

/// The certificates of one PEM file, read afresh for each connection: LND regenerates its
/// `tls.cert` when it expires (or with `tlsautorefresh`), and a node that kept the old one
/// in memory would refuse the new one until restarted.
public struct TLSCertificates: Sendable {
    /// The file the certificates came from, for messages.
    public let path: String
    /// Each certificate's DER bytes, in file order.
    public let der: [[UInt8]]

    /// Reads every PEM certificate in `path` (a chain or a single self-signed one).
    public static func read(path: String) throws(TLSError) -> TLSCertificates {
        try parse(fileBytes(path: path), path: path)
    }

    /// The bytes of the file at `path`, as they are now.
    static func fileBytes(path: String) throws(TLSError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .certificateFileUnreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1_024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .certificateFileUnreadable(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { return bytes }
            bytes += chunk.prefix(count)
        }
    }

    /// Every PEM certificate in `pem`, the contents of `path`.
    static func parse(_ pem: [UInt8], path: String) throws(TLSError) -> TLSCertificates {
        ERR_clear_error()
        // The memory BIO reads `pem` in place, so all of the parsing happens in this closure.
        let der = pem.withUnsafeBytes { raw -> [[UInt8]] in
            guard let file = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return [] }
            defer { BIO_free(file) }
            var der: [[UInt8]] = []
            while let certificate = PEM_read_bio_X509(file, nil, nil, nil) {
                defer { X509_free(certificate) }
                if let bytes = TLSCertificates.derBytes(certificate) { der.append(bytes) }
            }
            return der
        }
        // The loop ends on "no start line" at the end of the file: expected, not an error.
        ERR_clear_error()
        guard !der.isEmpty else { throw .certificateFileHasNoCertificate(path: path) }
        return TLSCertificates(path: path, der: der)
    }

    /// SHA-256 of each certificate's DER, as `openssl x509 -fingerprint -sha256` prints it.
    public var fingerprints: [String] { der.map(TLSCertificates.fingerprint) }

    /// `AB:CD:...`: SHA-256 of DER bytes, upper-case hex pairs joined by colons.
    public static func fingerprint(_ der: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = der.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        guard ok == 1 else { return "(unavailable)" }
        let hex: [Character] = Array("0123456789ABCDEF")
        return digest.prefix(Int(length)).map { String([hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }

    /// The DER encoding of an OpenSSL certificate.
    static func derBytes(_ certificate: OpaquePointer) -> [UInt8]? {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        return written == length ? bytes : nil
    }
}
