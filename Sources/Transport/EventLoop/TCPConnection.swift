import CLibUV

/// A TCP connection on an event loop, as a `ByteStream`. The actor runs on its loop's
/// thread (its executor is the loop), so its methods call libuv directly; `read()` and
/// `write` are nonisolated and run on the caller's thread (see `UVStreamCore`).
///
/// Reading, writing, end of stream and closing are the shared stream machinery of
/// `UVStreamCore`, which documents the contract:
/// - Reads: bytes are read ahead into the connection until `readBufferLimit` bytes wait
///   unread; then reading stops (the kernel's window closes and the peer slows down)
///   and resumes once `read()` drains them. `read()` returns everything buffered.
/// - End of stream: a clean close by the peer (EOF) makes `read()` return nil, after any
///   bytes still buffered. A reset or other read error makes `read()` throw
///   `LibUVError` (call `uv_read`, e.g. code ECONNRESET) — then, and on every later read,
///   so the failure is never mistaken for a clean end.
/// - Writes: `write` returns once the kernel has taken the bytes. A write after `close()`
///   or after the peer went away (EPIPE, ECONNRESET) throws `ByteStreamError.closed`.
///   Cancelling a task while its write is in flight closes the connection, since a
///   half-sent message cannot be taken back.
/// - `read()` and `accept`-style waits are cancellable: a cancelled read throws
///   `CancellationError` and loses no bytes.
/// - Always `close()` a connection; `EventLoop.shutdown()` closes any left open.
public actor TCPConnection: ByteStream, UVStreamConnection {
    /// Bytes read ahead before reading pauses.
    public static let defaultReadBufferLimit = 1 << 20

    public nonisolated let loop: EventLoop
    /// The peer, `127.0.0.1:port` or `[::1]:port`, for logs.
    public nonisolated let remoteAddress: String
    /// The peer's address, for the per-host budgets; nil if the kernel would not say.
    public nonisolated let remoteSocketAddress: SocketAddress?
    /// Our end of the connection.
    public nonisolated let localAddress: String
    nonisolated let core: UVStreamCore

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.asUnownedSerialExecutor()
    }

    private init(core: UVStreamCore, loop: EventLoop, remote: SocketAddress?, localAddress: String) {
        self.core = core
        self.loop = loop
        remoteSocketAddress = remote
        remoteAddress = remote?.description ?? "unknown"
        self.localAddress = localAddress
    }

    /// Connects to `host:port`: a numeric IPv4/IPv6 address, or a name such as `localhost`
    /// resolved with uv_getaddrinfo (each address is tried in turn). Fails with
    /// `LibUVError` (call `uv_tcp_connect`, e.g. ECONNREFUSED) or `EventLoopError.shutDown`.
    public static func connect(
        host: String, port: Int, loop: EventLoop, readBufferLimit: Int = defaultReadBufferLimit
    ) async throws -> TCPConnection {
        let addresses = try await AddressResolver.resolve(host: host, port: port, loop: loop)
        var lastError: LibUVError?
        for address in addresses {
            do {
                return try await TCPConnector.connect(to: address, loop: loop, readBufferLimit: readBufferLimit)
            } catch let error as LibUVError {
                lastError = error
            }
        }
        throw lastError ?? LibUVError(call: "uv_tcp_connect", code: UV_EAI_NONAME.rawValue)
    }

    /// Connects to the numeric `host:port` from the numeric local address `source` (any
    /// port): a test simulates many hosts by dialling from 127.0.0.x, which Linux routes to
    /// loopback. Fails with `LibUVError` (`uv_tcp_bind`, `uv_tcp_connect`, or EINVAL for
    /// an address that is not numeric).
    public static func connect(
        host: String, port: Int, from source: String, loop: EventLoop, readBufferLimit: Int = defaultReadBufferLimit
    ) async throws -> TCPConnection {
        guard let address = SocketAddress(numericHost: host, port: port),
              let local = SocketAddress(numericHost: source, port: 0) else {
            throw LibUVError(call: "uv_ip_addr", code: UV_EINVAL.rawValue)
        }
        return try await TCPConnector.connect(to: address, from: local, loop: loop, readBufferLimit: readBufferLimit)
    }

    /// A new, unconnected TCP handle on `loop`, as a stream. Loop thread only. On failure
    /// nothing is left allocated.
    static func makeHandle(on loop: EventLoop) throws(LibUVError) -> UnsafeMutablePointer<uv_stream_t> {
        let tcp = UVHandle.allocate(uv_tcp_t.self)
        do {
            try uvCheck(uv_tcp_init(loop.uvLoop, tcp), "uv_tcp_init")
        } catch {
            UVHandle.free(tcp)
            throw error
        }
        return UVHandle.stream(tcp)
    }

    /// Wraps a connected or accepted handle (whose `data` is unset). Loop thread only.
    /// On failure the handle is closed and freed.
    static func adopt(
        _ tcp: UnsafeMutablePointer<uv_tcp_t>, loop: EventLoop, readBufferLimit: Int,
        onClosed: (@Sendable () -> Void)?
    ) throws(EventLoopError) -> TCPConnection {
        // Request/response protocols send small messages; Nagle's delay would stall them.
        // Failing to set it costs latency only, so its result is not an error.
        _ = uv_tcp_nodelay(tcp, 1)
        let remote = try? SocketAddress.of(tcp, peer: true)
        let local = (try? SocketAddress.of(tcp, peer: false))?.description ?? "unknown"
        let core = try UVStreamCore.adopt(
            UVHandle.stream(tcp), loop: loop, name: "TCPConnection", readBufferLimit: readBufferLimit,
            onClosed: onClosed)
        return TCPConnection(core: core, loop: loop, remote: remote, localAddress: local)
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
