import Glibc

/// What the kernel alone charges to carry the throughput benchmark's frames over loopback
/// TCP: the same number of 65,537-byte frames written and read back on one thread, with
/// blocking sockets, `TCP_NODELAY` as the node sets it, and no cryptography, framing or
/// tasks. It is not part of the bound (raw ChaCha20-Poly1305 in memory); it shows
/// how much of the channel's CPU per message no user-space change can remove.
enum LoopbackFloor {
    /// CPU seconds (user + system, this process) to move `count` frames of `frameBytes`.
    static func cpuSeconds(frames count: Int, frameBytes: Int) throws -> Double {
        let (writer, reader) = try connectedPair()
        defer {
            close(writer)
            close(reader)
        }
        let frame = [UInt8](repeating: 0x5a, count: frameBytes)
        var sink = [UInt8](repeating: 0, count: frameBytes)
        let before = processCPUSeconds()
        for _ in 0..<count {
            // The send buffer (4 MB) takes a whole frame, so the write returns before the
            // read on the same thread; no second thread, no wake-ups.
            var sent = 0
            while sent < frameBytes {
                let n = frame.withUnsafeBytes { write(writer, $0.baseAddress! + sent, frameBytes - sent) }
                guard n > 0 else { throw BenchFailure("loopback write failed: errno \(errno)") }
                sent += n
            }
            var received = 0
            while received < frameBytes {
                let n = sink.withUnsafeMutableBytes { read(reader, $0.baseAddress! + received, frameBytes - received) }
                guard n > 0 else { throw BenchFailure("loopback read failed: errno \(errno)") }
                received += n
            }
        }
        return processCPUSeconds() - before
    }

    /// A connected loopback TCP pair: (the dialled end, the accepted end).
    private static func connectedPair() throws -> (Int32, Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchFailure("socket failed: errno \(errno)") }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound else { throw BenchFailure("loopback listen failed: errno \(errno)") }
        let dialled = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard dialled >= 0 else { throw BenchFailure("socket failed: errno \(errno)") }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(dialled, $0, length) == 0 }
        }
        guard connected else { throw BenchFailure("loopback connect failed: errno \(errno)") }
        let accepted = accept(listener, nil, nil)
        guard accepted >= 0 else { throw BenchFailure("loopback accept failed: errno \(errno)") }
        var noDelay: Int32 = 1
        var bufferBytes: Int32 = 4 << 20
        for fd in [dialled, accepted] {
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufferBytes, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufferBytes, socklen_t(MemoryLayout<Int32>.size))
        }
        return (dialled, accepted)
    }
}
