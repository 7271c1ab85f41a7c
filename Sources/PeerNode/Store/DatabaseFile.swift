#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the database file owner-only before SQLite opens it. SQLite would create it
/// 0644 (less the umask), and it gives the `-wal` and `-shm` files the main file's mode,
/// so fixing the main file's mode first keeps the whole store private: it holds swap
/// contracts and wallet data.
enum DatabaseFile {
    static func prepare(path: String) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .database(operation: "create \(path)", message: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        // The umask may have narrowed the mode further (fine) but never widened it; an
        // existing file made by hand may be wider, so set it exactly.
        guard fchmod(fd, 0o600) == 0 else {
            throw .database(operation: "chmod \(path)", message: String(cString: strerror(errno)))
        }
    }
}
