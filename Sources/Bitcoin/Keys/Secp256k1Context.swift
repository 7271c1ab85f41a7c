import CSecp256k1
import CSodium

/// The one process-wide libsecp256k1 context, and the one place where libsecp256k1's
/// return codes are checked and turned into `BitcoinError`s.
///
/// A context is costly to build (precomputed tables), so it is made once, on first use,
/// by a global `let` (which Swift initialises exactly once, thread-safely). It is
/// randomized right after creation, before anyone else can see it, to blind signing and
/// key generation against side channels; after that it is only ever passed as
/// `const secp256k1_context*`, which libsecp256k1 documents as safe to share between
/// threads.
enum Secp256k1Context {
    /// `nonisolated(unsafe)` because `OpaquePointer` is not `Sendable`: the compiler cannot
    /// know that the pointee is never mutated after `make()` returns. It is not: every use
    /// below is a const call, which libsecp256k1 allows from any number of threads at once.
    nonisolated(unsafe) static let shared: OpaquePointer = make()

    private static func make() -> OpaquePointer {
        requireSodium()
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            fatalError("secp256k1_context_create returned NULL")
        }
        var seed = randomBytes(count: 32)
        let randomized = secp256k1_context_randomize(context, seed)
        sodium_memzero(&seed, seed.count)
        precondition(randomized == 1, "secp256k1_context_randomize failed")
        return context
    }

    /// Runs one libsecp256k1 call that reports success as 1, throwing `error` otherwise.
    /// Used where a 0 means the caller's input was bad (a key, tweak or signature).
    static func call(_ error: @autoclosure () -> BitcoinError, _ body: (OpaquePointer) -> Int32) throws {
        guard body(shared) == 1 else { throw error() }
    }

    /// Runs one libsecp256k1 call whose inputs were already validated, so that a 0 can
    /// only mean a broken invariant here (never bad input): it stops the process rather
    /// than carrying on with a half-written key or signature.
    static func expect(_ function: StaticString, _ body: (OpaquePointer) -> Int32) {
        let result = body(shared)
        precondition(result == 1, "\(function) failed on inputs that were already validated")
    }

    /// Runs a predicate-style call (verification, comparison helpers): 1 is true, 0 false.
    static func holds(_ body: (OpaquePointer) -> Int32) -> Bool {
        body(shared) == 1
    }

    /// Fresh bytes from the operating system's CSPRNG (through libsodium).
    static func randomBytes(count: Int) -> [UInt8] {
        requireSodium()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }
}
