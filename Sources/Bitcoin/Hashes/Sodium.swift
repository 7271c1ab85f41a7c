import CSodium

/// libsodium must be initialised once per process before its primitives pick their
/// fastest implementation; a global `let` runs the call exactly once, thread-safely.
let sodiumInitialized: Bool = sodium_init() >= 0

@inline(__always)
func requireSodium() {
    precondition(sodiumInitialized, "libsodium failed to initialise")
}
