import Synchronization

/// The X25519 forms of ed25519 keys already validated in this process, so a pubky read
/// again (a contact loaded for each swap's offers, a peer's key in each signed message) is
/// not validated again. Checking a key is a scalar multiplication by the group's order
/// plus a square root for the conversion, tens of microseconds; a lookup is a hash of 32
/// bytes.
///
/// Only keys that passed are remembered: a key that fails is checked again each time.
/// Bounded: when `capacity` keys are held the set is emptied, so a peer that sends many
/// distinct valid keys costs their checks and no more memory than this.
final class ValidatedPubkeys: Sendable {
    static let capacity = 4_096

    private let known = Mutex<[[UInt8]: [UInt8]]>([:])

    /// The X25519 form remembered for `publicKey`, or nil if it was not validated here.
    func noiseStaticKey(for publicKey: [UInt8]) -> [UInt8]? {
        known.withLock { $0[publicKey] }
    }

    /// Remembers that `publicKey` passed, with its X25519 form.
    func remember(_ publicKey: [UInt8], noiseStaticKey: [UInt8]) {
        known.withLock { known in
            if known.count >= Self.capacity { known.removeAll(keepingCapacity: true) }
            known[publicKey] = noiseStaticKey
        }
    }

    var count: Int { known.withLock { $0.count } }

    /// The process's one set.
    static let shared = ValidatedPubkeys()
}
