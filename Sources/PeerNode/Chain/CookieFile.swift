#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Transport

/// Reads Bitcoin Core's cookie file (`__cookie__:<hex>`, a few dozen bytes). Read with
/// plain POSIX calls: the file is tiny and local, so the read is short, and the module
/// stays free of Foundation.
enum CookieFile {
    /// Why the cookie could not be used; the caller turns it into a backend error naming
    /// the URL, since a missing cookie usually means Core is not running.
    struct Failure: Error {
        let reason: String
    }

    /// The cookie's credentials. Cookies are far below the 4 KiB read bound; a larger file
    /// is not a cookie.
    static func read(path: String) throws(Failure) -> HTTPBasicCredentials {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw Failure(reason: "cannot open the cookie file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let capacity = 4096
        var bytes = [UInt8](repeating: 0, count: capacity)
        var count = 0
        while count < capacity {
            let n = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + count, capacity - count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(reason: "cannot read the cookie file \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
        }
        guard count < capacity else { throw Failure(reason: "the cookie file \(path) is too large to be a cookie") }
        guard let text = String(validating: bytes[..<count], as: UTF8.self),
              let credentials = HTTPBasicCredentials(cookie: text) else {
            throw Failure(reason: "the cookie file \(path) does not hold user:password")
        }
        return credentials
    }
}
