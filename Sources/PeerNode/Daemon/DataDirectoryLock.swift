#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One daemon per data directory, as Bitcoin Core's `.lock`: an exclusive `flock` on
/// `<datadir>/.lock`, taken before the store is opened and held until the process ends
/// or `release()`. Two daemons on one directory would both drive the same swaps (and a
/// second `control_socket` does not tell them apart), so the directory, not the socket,
/// is what is locked.
///
/// The kernel drops a `flock` when its holder dies, even by `kill -9`, so a crashed
/// daemon never leaves a stale lock behind. The file holds the holder's pid, so the
/// refusal can name it.
public final class DataDirectoryLock: Sendable {
    public static let fileName = ".lock"

    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Takes the lock without waiting; `.locked` (with the holder's pid) when another
    /// daemon holds it.
    public static func acquire(datadir: String) throws(DaemonError) -> DataDirectoryLock {
        let path = NodeConfig.path(datadir, fileName)
        // O_CLOEXEC: a child process must not inherit (and so keep) the lock.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .file("cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        var result: Int32
        repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        if result != 0 {
            let code = errno
            let holder = readPID(descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw .locked(datadir: datadir, pid: holder) }
            throw .file("cannot lock \(path): \(String(cString: strerror(code)))")
        }
        // Ours now: record who holds it.
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return DataDirectoryLock(path: path, descriptor: descriptor)
    }

    /// Lets another daemon start on the directory (the daemon's last teardown step).
    /// Called once.
    public func release() {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let digits = buffer.prefix(count).prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return Int32(String(decoding: digits, as: UTF8.self))
    }
}
