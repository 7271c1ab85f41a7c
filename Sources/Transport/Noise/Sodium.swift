import CSodium

/// libsodium must be initialised once per process before its primitives pick their
/// fastest implementation; a global `let` runs the call exactly once, thread-safely.
/// (Bitcoin has its own copy, but it is internal to that module; calling `sodium_init`
/// twice is harmless.)
let sodiumInitialized: Bool = sodium_init() >= 0

@inline(__always)
func requireSodium() {
    precondition(sodiumInitialized, "libsodium failed to initialise")
}

/// Overwrites a temporary that held key material. `sodium_memzero` is used because a plain
/// loop of stores to a buffer about to die may be removed by the optimiser.
@inline(__always)
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
    }
}
