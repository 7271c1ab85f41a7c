import CSodium

/// Key material in a heap buffer of its own, wiped when the last reference goes away.
///
/// A `[UInt8]` would leave copies behind whenever copy-on-write duplicates or frees its
/// storage; one immutable buffer shared by reference keeps exactly one copy to wipe. It is
/// `@unchecked Sendable` because the bytes are written once, in `init`, and only read after.
/// `description` never shows the bytes, so a secret cannot end up in a log by accident.
final class SecretBytes: @unchecked Sendable, CustomStringConvertible, CustomReflectable {
    private let buffer: UnsafeMutableRawBufferPointer

    /// Allocates `count` bytes and lets `initialize` fill them.
    init(count: Int, _ initialize: (UnsafeMutableRawBufferPointer) -> Void) {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        initialize(buffer)
    }

    /// Copies `bytes`; the caller wipes its own copy if it was secret.
    convenience init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    /// Copies `bytes` and wipes the source array.
    convenience init(taking bytes: inout [UInt8]) {
        self.init(copying: bytes)
        wipe(&bytes)
    }

    deinit {
        if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        buffer.deallocate()
    }

    var count: Int { buffer.count }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(buffer))
    }

    /// A typed pointer for C calls that take `const unsigned char *`.
    func withUnsafeUInt8Pointer<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)))
    }

    /// Constant-time comparison, so equality checks on secrets do not leak through timing.
    func isEqual(to other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { mine in
            other.withUnsafeBytes { theirs in
                sodium_memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
    }

    var description: String { "SecretBytes(\(count) bytes, redacted)" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
}
