#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Lightning

/// The macaroon files of the hub's nodes, written as LND writes them (binary V2, mode
/// 0600): `<directory>/<node>/admin.macaroon`, `invoice.macaroon`, `readonly.macaroon`.
/// The directory is a fresh one under $TMPDIR per hub, removed when the hub stops.
struct LNDMacaroonFiles: Sendable {
    let directory: String

    /// Creates the hub's directory (mode 0700).
    static func create() throws(LNDMacaroonFilesError) -> LNDMacaroonFiles {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/peernode-hub-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw .cannotWrite(base, errno: errno) }
        return LNDMacaroonFiles(directory: String(cString: template.map { CChar($0) }))
    }

    /// Writes the node's three macaroons; returns their paths by name.
    func write(node: String, _ macaroons: LNDMacaroonAuthority) throws(LNDMacaroonFilesError) -> [String: String] {
        let folder = "\(directory)/\(node)"
        guard mkdir(folder, 0o700) == 0 || errno == EEXIST else { throw .cannotWrite(folder, errno: errno) }
        var paths: [String: String] = [:]
        for (name, macaroon) in [("admin", macaroons.admin), ("invoice", macaroons.invoice), ("readonly", macaroons.readOnly)] {
            let path = "\(folder)/\(name).macaroon"
            let bytes = macaroon.encoded
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw .cannotWrite(path, errno: errno) }
            let written = bytes.withUnsafeBytes { Self.posixWrite(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard written == bytes.count else { throw .cannotWrite(path, errno: errno) }
            paths[name] = path
        }
        return paths
    }

    private static func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.write(fd, buffer, count)
        #else
        return Darwin.write(fd, buffer, count)
        #endif
    }

    /// Removes every file the hub wrote, then the directory.
    func remove(nodes: [String]) {
        for node in nodes {
            for name in ["admin", "invoice", "readonly"] { unlink("\(directory)/\(node)/\(name).macaroon") }
            rmdir("\(directory)/\(node)")
        }
        rmdir(directory)
    }
}

enum LNDMacaroonFilesError: Error, Sendable, CustomStringConvertible {
    case cannotWrite(String, errno: Int32)

    var description: String {
        switch self {
        case .cannotWrite(let path, let code):
            return "cannot write the macaroon files at \(path): \(String(cString: strerror(code))); set TMPDIR to a writable directory"
        }
    }
}
