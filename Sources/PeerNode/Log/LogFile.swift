#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The daemon's `peernode.log` in its data directory, rotated by size: when the next entry
/// would take the file past `maxBytes` (10 MiB), it becomes `peernode.log.1`, the older
/// ones move up one number, and the one past `keep` (5) is deleted; at most 60 MiB in all.
///
/// An entry is one `write(2)` to a file opened with O_APPEND, under a lock, so concurrent
/// writers never interleave; a local append takes microseconds, as the stderr writes the
/// daemon always made did. A failed write drops the entry (the log must never stop the
/// daemon).
public final class LogFile: Sendable {
    public static let fileName = "peernode.log"
    public static let defaultMaxBytes = 10 * 1_024 * 1_024
    public static let defaultKeep = 5

    public let path: String
    private let maxBytes: Int
    private let keep: Int
    private let nowMillis: @Sendable () -> Int64
    private let file: Mutex<Int32>
    private let size: Atomic<Int>

    /// Opens (or creates, mode 0600) `peernode.log` in `directory` for appending.
    public init(directory: String, maxBytes: Int = LogFile.defaultMaxBytes, keep: Int = LogFile.defaultKeep,
                nowMillis: @escaping @Sendable () -> Int64 = LogFile.wallClockMillis) throws(LogFileError) {
        path = directory + "/" + Self.fileName
        self.maxBytes = max(1, maxBytes)
        self.keep = max(0, keep)
        self.nowMillis = nowMillis
        let descriptor: Int32
        do { descriptor = try Self.open(path) } catch { throw LogFileError(description: error.description) }
        file = Mutex(descriptor)
        size = Atomic(Self.size(of: descriptor))
    }

    deinit { close() }

    /// Appends `text` as one entry (`LogLine`) and returns the entry as written (or as it
    /// would have been, when the write failed).
    @discardableResult
    public func write(_ text: String) -> String {
        let entry = LogLine.format(text, unixMillis: nowMillis())
        let bytes = Array(entry.utf8)
        file.withLock { descriptor in
            guard descriptor >= 0 else { return }
            let current = size.load(ordering: .relaxed)
            if current > 0, current + bytes.count > maxBytes { rotate(&descriptor) }
            guard descriptor >= 0 else { return }
            if Self.writeAll(bytes, to: descriptor) { size.add(bytes.count, ordering: .relaxed) }
        }
        return entry
    }

    /// Closes the file; later entries are dropped.
    public func close() {
        file.withLock { descriptor in
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }

    /// peernode.log.(keep-1) -> .keep, ..., peernode.log -> .1, then a fresh peernode.log.
    private func rotate(_ descriptor: inout Int32) {
        Glibc.close(descriptor)
        descriptor = -1
        if keep == 0 {
            unlink(path)
        } else {
            unlink("\(path).\(keep)")
            for index in stride(from: keep - 1, through: 1, by: -1) { rename("\(path).\(index)", "\(path).\(index + 1)") }
            rename(path, "\(path).1")
        }
        descriptor = (try? Self.open(path)) ?? -1
        size.store(0, ordering: .relaxed)
    }

    private static func open(_ path: String) throws(PosixFile.Failure) -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PosixFile.Failure(operation: "open", path: path, code: errno) }
        return descriptor
    }

    private static func size(of descriptor: Int32) -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Milliseconds since 1970 from the system's real-time clock (timestamps only; nothing
    /// that protects funds reads it).
    public static let wallClockMillis: @Sendable () -> Int64 = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
