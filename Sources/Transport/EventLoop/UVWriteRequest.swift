import CLibUV

/// One `uv_write` in flight: the request and a private copy of the bytes, both kept alive
/// until libuv's callback, where they are freed. The caller's array may be released as
/// soon as `write` suspends, so libuv must never point into it. Shared by every stream
/// (TCP and pipe); the callback resumes the stream's `UVStreamCore`.
final class UVWriteRequest {
    let request: UnsafeMutablePointer<uv_write_t>
    private let memory: UnsafeMutableRawBufferPointer
    var continuation: CheckedContinuation<Void, any Error>?

    init(copying bytes: ArraySlice<UInt8>) {
        request = UVHandle.allocate(uv_write_t.self)
        memory = .allocate(byteCount: bytes.count, alignment: 1)
        memory.copyBytes(from: bytes)
    }

    /// Starts the write. On success the request holds a reference to itself until the
    /// callback; on failure everything is freed here and the error is returned.
    func start(on stream: UnsafeMutablePointer<uv_stream_t>) throws(LibUVError) {
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var buffer = uv_buf_init(memory.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(memory.count))
        let rc = uv_write(request, stream, &buffer, 1) { request, status in
            let write = Unmanaged<UVWriteRequest>.fromOpaque(request!.pointee.data).takeRetainedValue()
            let core = UVStreamCore.owner(of: request!.pointee.handle)
            let continuation = write.continuation
            write.continuation = nil
            write.release()
            core.assumeIsolated { $0.writeFinished(continuation, status: status) }
        }
        do {
            try uvCheck(rc, "uv_write")
        } catch {
            Unmanaged<UVWriteRequest>.fromOpaque(request.pointee.data).release()
            release()
            throw error
        }
    }

    /// Frees the request and the copy; libuv is done with both.
    private func release() {
        UVHandle.free(request)
        memory.deallocate()
    }
}
