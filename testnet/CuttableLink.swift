#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A loopback TCP forwarder between ElectrumX and the hub's Bitcoin Core RPC, so a scenario
/// can take the server's Bitcoin node away from it: `cut()` ends every forwarded
/// connection and refuses new ones (ElectrumX keeps serving its index, which stops
/// following the chain: a lagging server), `restore()` forwards again. Threads, because
/// the runner is a plain blocking program; each connection is two pumps.
///
/// With `intercept`, the link reads what the client sends line by line (Electrum's
/// framing) and may answer part of a line itself, forwarding the rest: a server in front
/// of ElectrumX that lies about some calls.
final class CuttableLink: @unchecked Sendable {
    /// A line from the client (without its newline) to what the link sends back in the
    /// server's place and what it forwards instead (each a whole line with its newline, or
    /// nil for none); nil to forward the line as it is.
    typealias Intercept = @Sendable ([UInt8]) -> (reply: [UInt8]?, forward: [UInt8]?)?

    let port: Int
    private let target: Int
    private let listener: Int32
    private let intercept: Intercept?
    private let lock = NSLock()
    private var isCut = false
    private var open: [Int32: Int32] = [:]

    init(to target: Int, intercept: Intercept? = nil) throws(Failure) {
        self.target = target
        self.intercept = intercept
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("link: socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = LoopbackHTTP.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw Failure("link: cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Ends every forwarded connection and refuses new ones until `restore()`.
    func cut() {
        lock.lock()
        isCut = true
        for (from, to) in open {
            shutdown(from, Int32(SHUT_RDWR))
            shutdown(to, Int32(SHUT_RDWR))
        }
        lock.unlock()
    }

    func restore() {
        lock.lock()
        isCut = false
        lock.unlock()
    }

    /// Stops accepting (at the scenario's end; the forwarded connections end with ElectrumX).
    func stop() {
        cut()
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            lock.lock()
            let refused = isCut
            lock.unlock()
            guard !refused, let upstream = Self.dial(target) else {
                close(client)
                continue
            }
            lock.lock()
            open[client] = upstream
            lock.unlock()
            let ended = Countdown(2)
            // Both directions may write to the client when the link answers in the server's place.
            let clientWrites = NSLock()
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread.detachNewThread { [self] in
                    if let intercept, from == client {
                        Self.pumpLines(from, to, intercept: intercept, clientWrites: clientWrites)
                    } else {
                        Self.pump(from, to, writes: to == client ? clientWrites : nil)
                    }
                    // Either direction ending ends the connection; the last pump closes it.
                    shutdown(client, Int32(SHUT_RDWR))
                    shutdown(upstream, Int32(SHUT_RDWR))
                    if ended.tick() {
                        lock.lock()
                        open[client] = nil
                        lock.unlock()
                        close(client)
                        close(upstream)
                    }
                }
            }
        }
    }

    private static func pump(_ from: Int32, _ to: Int32, writes: NSLock?) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            writes?.lock()
            let sent = sendAll(Array(chunk[0..<count]), to)
            writes?.unlock()
            guard sent else { return }
        }
    }

    /// The client's side with an interceptor: whole lines, each forwarded or answered.
    private static func pumpLines(_ from: Int32, _ to: Int32, intercept: Intercept, clientWrites: NSLock) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var pending: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            pending += chunk[0..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if let (reply, forward) = intercept(line) {
                    if let reply {
                        clientWrites.lock()
                        let sent = sendAll(reply, from)
                        clientWrites.unlock()
                        guard sent else { return }
                    }
                    if let forward { guard sendAll(forward, to) else { return } }
                } else {
                    guard sendAll(line + [0x0A], to) else { return }
                }
            }
        }
    }

    private static func sendAll(_ bytes: [UInt8], _ to: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private static func dial(_ port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = LoopbackHTTP.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}

/// Counts down from `count` under a lock; `tick` is true for the last one.
private final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int

    init(_ count: Int) { left = count }

    func tick() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        left -= 1
        return left == 0
    }
}
