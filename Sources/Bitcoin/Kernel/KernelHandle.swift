#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// One `dlopen` of libbitcoinkernel and typed symbol lookup: the single place where a missing
/// file or symbol becomes an error that names the path and the setup step that provides it.
/// The loaders built on it (script verification, chainstate) resolve every symbol they need
/// at once, so a wrong library fails at load, never halfway through a call.
struct KernelHandle {
    let path: String
    private let raw: UnsafeMutableRawPointer

    static func open(_ path: String) throws -> KernelHandle {
        guard let raw = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            throw BitcoinError.kernelUnavailable("cannot load libbitcoinkernel from \(path) (\(reason)); \(KernelLibrary.setupHint)")
        }
        return KernelHandle(path: path, raw: raw)
    }

    /// The symbol as a typed C function pointer. A library without it is not the Core
    /// version this wrapper was written for.
    func symbol<F>(_ name: String, as _: F.Type) throws -> F {
        guard let address = dlsym(raw, name) else {
            throw BitcoinError.kernelUnavailable(
                "\(path) has no symbol \(name), so it is not Bitcoin Core v31's libbitcoinkernel; \(KernelLibrary.setupHint)")
        }
        return unsafeBitCast(address, to: F.self)
    }

    /// Only for a library being rejected: on success a handle stays open for the life of the
    /// process, which keeps every resolved function pointer valid and shareable.
    func close() {
        dlclose(raw)
    }
}

/// Loads each kernel library value once per path and process (the dlopen and every dlsym).
final class KernelLibraryCache<Library: Sendable>: Sendable {
    private let loaded = Mutex<[String: Library]>([:])

    func load(path: String, _ open: (String) throws -> Library) throws -> Library {
        try loaded.withLock { cache in
            if let library = cache[path] { return library }
            let library = try open(path)
            cache[path] = library
            return library
        }
    }
}
