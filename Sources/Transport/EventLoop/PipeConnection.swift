import CLibUV

/// A unix-domain socket connection on an event loop (`uv_pipe_t`), as a `ByteStream`:
/// the local twin of `TCPConnection`, with the same contract for reads (read-ahead up to
/// `readBufferLimit`, nil at a clean end, a typed error on a reset), writes (returned once
/// the kernel has the bytes; `ByteStreamError.closed` once the peer is gone), cancellation
/// and closing — both are the shared stream machinery of `UVStreamCore`. The daemon's
/// control API and the `peernode` commands talk over it.
public actor PipeConnection: ByteStream, UVStreamConnection {
    /// Bytes read ahead before reading pauses.
    public static let defaultReadBufferLimit = 1 << 20

    public nonisolated let loop: EventLoop
    /// The socket's path (the listener's, on both ends), for logs and messages.
    public nonisolated let path: String
    nonisolated let core: UVStreamCore

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private init(core: UVStreamCore, loop: EventLoop, path: String) {
        self.core = core
        self.loop = loop
        self.path = path
    }

    /// Connects to the unix socket at `path`. Fails with `LibUVError` (call
    /// `uv_pipe_connect`: ENOENT when no socket is there, ECONNREFUSED when nobody
    /// listens on it) or `EventLoopError.shutDown`.
    public static func connect(
        path: String, loop: EventLoop, readBufferLimit: Int = defaultReadBufferLimit
    ) async throws -> PipeConnection {
        try await PipeConnector.connect(path: path, loop: loop, readBufferLimit: readBufferLimit)
    }

    /// A new, unconnected pipe handle on `loop`, as a stream. Loop thread only. On failure
    /// nothing is left allocated.
    static func makeHandle(on loop: EventLoop) throws(LibUVError) -> UnsafeMutablePointer<uv_stream_t> {
        let pipe = UVHandle.allocate(uv_pipe_t.self)
        do {
            try uvCheck(uv_pipe_init(loop.uvLoop, pipe, 0), "uv_pipe_init")
        } catch {
            UVHandle.free(pipe)
            throw error
        }
        return UVHandle.stream(pipe)
    }

    /// Wraps a connected or accepted handle (whose `data` is unset). Loop thread only.
    /// On failure the handle is closed and freed.
    static func adopt(
        _ pipe: UnsafeMutablePointer<uv_pipe_t>, path: String, loop: EventLoop, readBufferLimit: Int,
        onClosed: (@Sendable () -> Void)?
    ) throws(EventLoopError) -> PipeConnection {
        let core = try UVStreamCore.adopt(
            UVHandle.stream(pipe), loop: loop, name: "PipeConnection", readBufferLimit: readBufferLimit,
            onClosed: onClosed)
        return PipeConnection(core: core, loop: loop, path: path)
    }

    /// Nonisolated, like the core's: a reader does not hop onto the loop to read.
    public nonisolated func read() async throws -> [UInt8]? {
        try await core.read()
    }

    /// Wakes the reader once `atLeast` bytes are buffered (at most the read-ahead limit),
    /// or when the stream ends or fails.
    public nonisolated func read(atLeast: Int) async throws -> [UInt8]? {
        try await core.read(atLeast: atLeast)
    }

    /// Bytes read ahead and not yet returned by `read()`.
    public nonisolated var bufferedByteCount: Int {
        get async { core.bufferedByteCount }
    }

    /// True while reading is stopped because `readBufferLimit` bytes wait unread.
    public nonisolated var isReadingPaused: Bool {
        get async { core.isReadingPaused }
    }

    /// Nonisolated, like the core's: a write the kernel takes whole needs no loop.
    public nonisolated func write(_ bytes: [UInt8]) async throws {
        try await core.write(bytes)
    }

    /// Half-close: sends FIN once queued writes are out; reading continues. The peer's
    /// `read()` then returns nil.
    public func shutdownWrite() async throws {
        try await core.shutdownWrite()
    }

    /// Closes both directions and returns once libuv has released the handle. A pending
    /// read returns nil; queued writes fail with `ByteStreamError.closed`.
    public nonisolated func close() async {
        await core.close()
    }
}
