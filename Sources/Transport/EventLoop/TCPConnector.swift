import CLibUV

/// One outbound connection attempt to one address: a TCP handle and a `uv_connect_t`,
/// which becomes a `TCPConnection` on success. Aborted by task cancellation or shutdown,
/// which close the handle so libuv completes the request with ECANCELED.
///
/// `@unchecked Sendable`: the caller's thread only creates it and hands it to
/// `loop.execute`; every field is read and written on the loop thread.
final class TCPConnector: LoopResource, @unchecked Sendable {
    private let loop: EventLoop
    private let address: SocketAddress
    private let readBufferLimit: Int
    private let source: SocketAddress?
    private var handle: UnsafeMutablePointer<uv_tcp_t>?
    private var continuation: CheckedContinuation<TCPConnection, any Error>?
    private var abortReason: (any Error)?

    private init(loop: EventLoop, address: SocketAddress, source: SocketAddress?, readBufferLimit: Int) {
        self.loop = loop
        self.address = address
        self.source = source
        self.readBufferLimit = readBufferLimit
    }

    /// With `source`, the socket is bound to that local address first (port 0: any), so
    /// the connection comes from it.
    static func connect(
        to address: SocketAddress, from source: SocketAddress? = nil, loop: EventLoop, readBufferLimit: Int
    ) async throws -> TCPConnection {
        let connector = TCPConnector(loop: loop, address: address, source: source, readBufferLimit: readBufferLimit)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loop.submit(failing: continuation) { connector.start(continuation) }
            }
        } onCancel: {
            loop.execute { connector.abort(CancellationError()) }
        }
    }

    private func start(_ continuation: CheckedContinuation<TCPConnection, any Error>) {
        if let abortReason { return continuation.resume(throwing: abortReason) }
        do {
            try loop.register(self)
        } catch {
            return continuation.resume(throwing: error)
        }
        self.continuation = continuation
        let tcp = UVHandle.allocate(uv_tcp_t.self)
        do {
            try uvCheck(uv_tcp_init(loop.uvLoop, tcp), "uv_tcp_init")
        } catch {
            UVHandle.free(tcp)
            return finish(.failure(error))
        }
        if let source {
            do {
                try uvCheck(source.withSockaddr { uv_tcp_bind(tcp, $0, 0) }, "uv_tcp_bind")
            } catch {
                UVHandle.closeAndFree(tcp)
                return finish(.failure(error))
            }
        }
        handle = tcp
        let request = UVHandle.allocate(uv_connect_t.self)
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        let rc = address.withSockaddr { sockaddr in
            uv_tcp_connect(request, tcp, sockaddr) { request, status in
                let connector = Unmanaged<TCPConnector>.fromOpaque(request!.pointee.data).takeRetainedValue()
                UVHandle.free(request!)
                connector.connected(status: status)
            }
        }
        do {
            try uvCheck(rc, "uv_tcp_connect")
        } catch {
            Unmanaged<TCPConnector>.fromOpaque(request.pointee.data).release()
            UVHandle.free(request)
            handle = nil
            UVHandle.closeAndFree(tcp)
            finish(.failure(error))
        }
    }

    private func connected(status: Int32) {
        // Aborted: the handle is already closing and the status is ECANCELED.
        if let abortReason { return finish(.failure(abortReason)) }
        guard let tcp = handle else { return }
        handle = nil
        do {
            try uvCheck(status, "uv_tcp_connect")
        } catch {
            UVHandle.closeAndFree(tcp)
            return finish(.failure(error))
        }
        finish(Result {
            try TCPConnection.adopt(tcp, loop: loop, readBufferLimit: readBufferLimit, onClosed: nil)
        })
    }

    /// Cancellation or shutdown: close the handle; the connect callback then finishes.
    func abort(_ reason: any Error) {
        guard abortReason == nil else { return }
        abortReason = reason
        if let tcp = handle {
            handle = nil
            UVHandle.closeAndFree(tcp)
        }
    }

    func closeForShutdown() {
        abort(EventLoopError.shutDown)
    }

    private func finish(_ result: Result<TCPConnection, any Error>) {
        loop.unregister(self)
        continuation?.resume(with: result)
        continuation = nil
    }
}
