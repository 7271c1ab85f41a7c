#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates a fresh private directory under `$TMPDIR` (or /tmp) with `mkdtemp`.
func makeTemporaryDirectory(prefix: String) throws -> String {
    var base = "/tmp"
    if let value = getenv("TMPDIR"), value.pointee != 0 { base = String(cString: value) }
    while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
    var template = Array((base + "/" + prefix + "XXXXXX").utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
        throw BitcoinError.kernelUnavailable("cannot create a temporary directory under \(base): errno \(errno)")
    }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Removes `path` and everything under it, without following symbolic links. Errors are
/// ignored: this is cleanup of a directory only this process wrote to.
func removeDirectoryTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFDIR else {
        unlink(path)
        return
    }
    if let directory = opendir(path) {
        var children: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { children.append(name) }
        }
        closedir(directory)
        for child in children { removeDirectoryTree(path + "/" + child) }
    }
    rmdir(path)
}
