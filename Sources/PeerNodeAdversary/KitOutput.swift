#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered lines to stdout (the report) and stderr (progress, errors): the C
/// `stdout`/`stderr` globals are shared mutable state Swift 6 keeps concurrent code from.
enum KitOutput {
    static func out(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }
    static func err(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            #if canImport(Glibc)
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            #else
            let written = bytes.withUnsafeBytes { Darwin.write(descriptor, $0.baseAddress, $0.count) }
            #endif
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
