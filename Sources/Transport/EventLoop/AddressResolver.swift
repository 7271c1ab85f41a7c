import CLibUV
import Glibc

/// Turns `host:port` into socket addresses: numeric hosts directly, names (such as
/// `localhost`) through uv_getaddrinfo, which runs the lookup on libuv's thread pool so
/// the loop never blocks on it.
///
/// `@unchecked Sendable`: created on the caller's thread and then handed to the loop;
/// `continuation` is set and used only on the loop thread.
final class AddressResolver: @unchecked Sendable {
    private let host: String
    private let port: Int
    private var continuation: CheckedContinuation<[SocketAddress], any Error>?

    private init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Every address for `host`, in the resolver's order (IPv6 and IPv4 for localhost).
    static func resolve(host: String, port: Int, loop: EventLoop) async throws -> [SocketAddress] {
        guard (0...65535).contains(port) else {
            throw LibUVError(call: "uv_getaddrinfo", code: UV_EINVAL.rawValue)
        }
        if let numeric = SocketAddress(numericHost: host, port: port) { return [numeric] }
        let resolver = AddressResolver(host: host, port: port)
        return try await withCheckedThrowingContinuation { continuation in
            loop.submit(failing: continuation) { resolver.start(loop: loop, continuation) }
        }
    }

    private func start(loop: EventLoop, _ continuation: CheckedContinuation<[SocketAddress], any Error>) {
        if loop.isClosingDown { return continuation.resume(throwing: EventLoopError.shutDown) }
        self.continuation = continuation
        let request = UVHandle.allocate(uv_getaddrinfo_t.self)
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        // libuv copies the host, service and hints into the request before returning.
        let rc = uv_getaddrinfo(loop.uvLoop, request, { request, status, results in
            let resolver = Unmanaged<AddressResolver>.fromOpaque(request!.pointee.data).takeRetainedValue()
            UVHandle.free(request!)
            resolver.finish(status: status, results: results)
        }, host, String(port), &hints)
        do {
            try uvCheck(rc, "uv_getaddrinfo")
        } catch {
            Unmanaged<AddressResolver>.fromOpaque(request.pointee.data).release()
            UVHandle.free(request)
            finish(failure: error)
        }
    }

    private func finish(status: Int32, results: UnsafeMutablePointer<addrinfo>?) {
        defer { uv_freeaddrinfo(results) }
        do {
            try uvCheck(status, "uv_getaddrinfo")
        } catch {
            return finish(failure: error)
        }
        var addresses: [SocketAddress] = []
        var entry = results
        while let info = entry {
            let family = info.pointee.ai_family
            if family == AF_INET || family == AF_INET6, let address = info.pointee.ai_addr {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen)))
                }
                addresses.append(SocketAddress(storage: storage))
            }
            entry = info.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return finish(failure: LibUVError(call: "uv_getaddrinfo", code: UV_EAI_NONAME.rawValue))
        }
        continuation?.resume(returning: addresses)
        continuation = nil
    }

    private func finish(failure: any Error) {
        continuation?.resume(throwing: failure)
        continuation = nil
    }
}
