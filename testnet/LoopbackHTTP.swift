#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A minimal blocking HTTP/1.1 POST to 127.0.0.1, enough for the hub's JSON-RPC: one
/// request per connection (`Connection: close`), send and receive timeouts on the
/// socket so a hub that stops answering fails the call instead of hanging the run.
/// The runner is a plain sequential program, so a blocking call is the simple choice.
enum LoopbackHTTP {
    struct Response {
        let status: Int
        let body: String
    }

    static func post(port: Int, path: String, headers: [String: String], body: Data, timeout: TimeInterval) throws(Failure) -> Response {
        let request = try send(port: port, path: path, headers: headers, body: body, timeout: timeout)
        defer { request.close() }
        return try request.response()
    }

    /// A request that is sent and whose response is read later: a streamed response (LND's
    /// `router/send` of a hold invoice) only ends after other calls (the settle) are made.
    struct Sent {
        let fd: Int32
        let port: Int
        let timeout: TimeInterval

        /// Reads until the response is complete (its `Content-Length`, or the end of the stream).
        func response() throws(Failure) -> Response {
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && errno == EINTR { continue }
                if count < 0 {
                    let timedOut = errno == EAGAIN || errno == EWOULDBLOCK
                    throw Failure(timedOut ? "127.0.0.1:\(port) did not answer within \(Int(timeout)) s"
                                           : "reading from 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
                }
                if count == 0 { break }
                received += chunk[..<count]
                if let response = complete(received) { return response }
            }
            guard let response = complete(received, atEOF: true) else {
                throw Failure("127.0.0.1:\(port) closed the connection before a full HTTP response")
            }
            return response
        }

        func close() { _ = Glibc.close(fd) }
    }

    /// Connects and sends a POST; the caller reads the response and closes.
    static func send(port: Int, path: String, headers: [String: String], body: Data, timeout: TimeInterval) throws(Failure) -> Sent {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket(): \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        head += "Content-Length: \(body.count)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        do {
            try send(fd, Array(head.utf8) + Array(body), port: port)
        } catch {
            close(fd)
            throw error
        }
        return Sent(fd: fd, port: port, timeout: timeout)
    }

    /// A port nobody listens on right now: bound to find it, then released. Used as the
    /// address of a contact that is offline (connections to it are refused).
    static func unusedPort() throws(Failure) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket(): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure("bind(127.0.0.1:0): \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure("getsockname(): \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// 127.0.0.1:`port` as a socket address (also the runner's other loopback sockets').
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8], port: Int) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure("writing to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    /// The response once its head and `Content-Length` body are in (or, without a
    /// length, everything up to the end of the stream).
    private static func complete(_ bytes: [UInt8], atEOF: Bool = false) -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else { return nil }
        var length: Int?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        let body = bytes[(end + 4)...]
        if let length {
            guard body.count >= length else { return nil }
            return Response(status: status, body: String(decoding: body.prefix(length), as: UTF8.self))
        }
        return atEOF ? Response(status: status, body: String(decoding: body, as: UTF8.self)) : nil
    }
}
