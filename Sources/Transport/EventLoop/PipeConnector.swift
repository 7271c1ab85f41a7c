import CLibUV

/// One outbound connection attempt to a unix socket: a pipe handle and a `uv_connect_t`,
/// which becomes a `PipeConnection` on success. Aborted by task cancellation or shutdown,
/// which close the handle so libuv completes the request with ECANCELED.
///
/// `@unchecked Sendable`: the caller's thread only creates it and hands it to
/// `loop.execute`; every field is read and written on the loop thread.
final class PipeConnector: LoopResource, @unchecked Sendable {
    private let loop: EventLoop
    private let path: String
    private let readBufferLimit: Int
    private var handle: UnsafeMutablePointer<uv_pipe_t>?
    private var continuation: CheckedContinuation<PipeConnection, any Error>?
    private var abortReason: (any Error)?

    private init(loop: EventLoop, path: String, readBufferLimit: Int) {
        self.loop = loop
        self.path = path
        self.readBufferLimit = readBufferLimit
    }

    static func connect(path: String, loop: EventLoop, readBufferLimit: Int) async throws -> PipeConnection {
        let connector = PipeConnector(loop: loop, path: path, readBufferLimit: readBufferLimit)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loop.submit(failing: continuation) { connector.start(continuation) }
            }
        } onCancel: {
            loop.execute { connector.abort(CancellationError()) }
        }
    }

    private func start(_ continuation: CheckedContinuation<PipeConnection, any Error>) {
        if let abortReason { return continuation.resume(throwing: abortReason) }
        // libuv would silently cut a longer path to sun_path's size and connect elsewhere.
        guard path.utf8.count <= PipeListener.maxPathBytes else {
            return continuation.resume(throwing: LibUVError(call: "uv_pipe_connect", code: UV_ENAMETOOLONG.rawValue))
        }
        do {
            try loop.register(self)
        } catch {
            return continuation.resume(throwing: error)
        }
        self.continuation = continuation
        let pipe = UVHandle.allocate(uv_pipe_t.self)
        do {
            try uvCheck(uv_pipe_init(loop.uvLoop, pipe, 0), "uv_pipe_init")
        } catch {
            UVHandle.free(pipe)
            return finish(.failure(error))
        }
        handle = pipe
        let request = UVHandle.allocate(uv_connect_t.self)
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        // uv_pipe_connect reports every failure, even an immediate one, through the callback.
        uv_pipe_connect(request, pipe, path) { request, status in
            let connector = Unmanaged<PipeConnector>.fromOpaque(request!.pointee.data).takeRetainedValue()
            UVHandle.free(request!)
            connector.connected(status: status)
        }
    }

    private func connected(status: Int32) {
        // Aborted: the handle is already closing and the status is ECANCELED.
        if let abortReason { return finish(.failure(abortReason)) }
        guard let pipe = handle else { return }
        handle = nil
        do {
            try uvCheck(status, "uv_pipe_connect")
        } catch {
            UVHandle.closeAndFree(pipe)
            return finish(.failure(error))
        }
        finish(Result {
            try PipeConnection.adopt(pipe, path: path, loop: loop, readBufferLimit: readBufferLimit, onClosed: nil)
        })
    }

    /// Cancellation or shutdown: close the handle; the connect callback then finishes.
    func abort(_ reason: any Error) {
        guard abortReason == nil else { return }
        abortReason = reason
        if let pipe = handle {
            handle = nil
            UVHandle.closeAndFree(pipe)
        }
    }

    func closeForShutdown() {
        abort(EventLoopError.shutDown)
    }

    private func finish(_ result: Result<PipeConnection, any Error>) {
        loop.unregister(self)
        continuation?.resume(with: result)
        continuation = nil
    }
}
