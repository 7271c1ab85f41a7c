import CLibUV

/// Memory for libuv handles and requests. Each handle is allocated here and freed in its
/// close callback (never in a deinit), because libuv may touch the memory until then.
enum UVHandle {
    /// Zeroed memory for a handle or request of type `T`.
    static func allocate<T>(_ type: T.Type) -> UnsafeMutablePointer<T> {
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        return raw.bindMemory(to: T.self, capacity: 1)
    }

    /// Frees memory from `allocate`, for requests (after their callback) and for handles
    /// that were never initialised.
    static func free<T>(_ pointer: UnsafeMutablePointer<T>) {
        UnsafeMutableRawPointer(pointer).deallocate()
    }

    /// The generic `uv_handle_t` view of a concrete handle (they share its prefix).
    static func base<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_handle_t> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_handle_t.self)
    }

    /// The `uv_stream_t` view of a stream handle (`uv_tcp_t`, `uv_pipe_t`: they share its prefix).
    static func stream<T>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<uv_stream_t> {
        UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: uv_stream_t.self)
    }

    /// The concrete handle behind a `uv_stream_t` made by `stream`.
    static func concrete<T>(_ stream: UnsafeMutablePointer<uv_stream_t>, as type: T.Type) -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer(stream).assumingMemoryBound(to: T.self)
    }

    /// Closes an initialised handle whose `data` holds no retained owner; the close
    /// callback frees it. Used on error paths before an owner adopts the handle.
    static func closeAndFree<T>(_ pointer: UnsafeMutablePointer<T>) {
        uv_close(base(pointer)) { handle in
            UnsafeMutableRawPointer(handle!).deallocate()
        }
    }

    /// The `EventLoop` that owns a handle's loop (its `data` is set at loop creation).
    static func eventLoop(of handle: UnsafeMutablePointer<uv_handle_t>) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(handle.pointee.loop.pointee.data).takeUnretainedValue()
    }
}
