#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file operations the daemon and `init` need, over POSIX calls (the module has
/// no Foundation). Each failure names the call's purpose, the path and the system's
/// reason.
enum PosixFile {
    struct Failure: Error, Equatable, CustomStringConvertible {
        let operation: String
        let path: String
        let code: Int32

        var reason: String { String(cString: strerror(code)) }
        var description: String { "cannot \(operation) \(path): \(reason)" }
        var isMissing: Bool { code == ENOENT }
    }

    enum Kind: Equatable {
        case file, directory, socket, other
    }

    /// What `path` is, or nil when nothing is there (a symlink is not followed).
    static func kind(of path: String) -> Kind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    /// The permission bits of `path`, or nil when it cannot be read.
    static func permissions(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    /// The whole file; refuses one larger than `limit` bytes (config and seed are small).
    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(operation: "open", path: path, code: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(operation: "read", path: path, code: errno)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw Failure(operation: "read (over \(limit) bytes)", path: path, code: EFBIG) }
        }
    }

    /// Creates `path` with `mode`, refusing an existing file (O_EXCL, so two racing calls
    /// cannot both write), writes `bytes` and syncs them to disk. A partial file left by a
    /// failed write is removed.
    static func create(_ path: String, bytes: UnsafeRawBufferPointer, mode: UInt32) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw Failure(operation: "create", path: path, code: errno) }
        var failure: Failure?
        // The umask may have narrowed the mode; set it exactly.
        if fchmod(fd, mode_t(mode)) != 0 { failure = Failure(operation: "chmod", path: path, code: errno) }
        var offset = 0
        while failure == nil && offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = Failure(operation: "write", path: path, code: errno)
            } else {
                offset += written
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = Failure(operation: "sync", path: path, code: errno) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
    }

    static func create(_ path: String, text: String, mode: UInt32) throws(Failure) {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(Failure) in try create(path, bytes: buffer, mode: mode) }
        }.get()
    }

    /// Replaces `path` with `bytes` so a crash leaves either the old or the new content,
    /// never a mix: the bytes go to `path.tmp` (mode `mode`), are synced, renamed over
    /// `path`, and the directory is synced so the rename itself is durable.
    static func replace(_ path: String, bytes: [UInt8], mode: UInt32) throws(Failure) {
        let temporary = path + ".tmp"
        unlink(temporary)
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(Failure) in try create(temporary, bytes: buffer, mode: mode) }
        }.get()
        guard rename(temporary, path) == 0 else {
            let failure = Failure(operation: "rename \(temporary) to", path: path, code: errno)
            unlink(temporary)
            throw failure
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(operation: "open the directory", path: directory, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(operation: "sync the directory", path: directory, code: errno) }
    }

    /// Creates `path` and any missing parents with `mode`; an existing directory is set to
    /// `mode`. Returns whether the last component was created.
    @discardableResult
    static func makeDirectory(_ path: String, mode: UInt32) throws(Failure) -> Bool {
        var prefix = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/")
        var created = false
        for (index, component) in components.enumerated() {
            prefix += component
            if mkdir(prefix, mode_t(mode)) == 0 {
                created = index == components.count - 1
            } else if errno != EEXIST {
                throw Failure(operation: "create the directory", path: prefix, code: errno)
            }
            prefix += "/"
        }
        guard kind(of: path) == .directory else { throw Failure(operation: "use the directory", path: path, code: ENOTDIR) }
        if chmod(path, mode_t(mode)) != 0 { throw Failure(operation: "chmod", path: path, code: errno) }
        return created
    }

    static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 else { throw Failure(operation: "remove", path: path, code: errno) }
    }
}
