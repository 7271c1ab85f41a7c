/// What can go wrong with seeds, z-base-32 strings and pubkys. Messages never echo the
/// input: it may be a secret (a seed) or come from a peer.
public enum IdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A node seed must be exactly 32 bytes.
    case invalidSeedLength(Int)
    /// A character outside the z-base-32 alphabet, at this 0-based position.
    case invalidZBase32Character(position: Int)
    /// The string has a length no byte string encodes to, or non-zero padding bits.
    case nonCanonicalZBase32
    /// A pubky decodes to 32 bytes; this decoded to another length.
    case invalidPublicKeyLength(Int)
    /// The text is neither a 52-character key, `pk:<key>`, nor a URL whose top-level
    /// label is the key.
    case unrecognizedPubkyForm
    /// The 32 bytes are not a usable ed25519 public key (not on the curve, small order,
    /// or not canonically encoded).
    case invalidEd25519PublicKey

    public var description: String {
        switch self {
        case .invalidSeedLength(let count):
            return "a node seed must be 32 bytes, got \(count); check the seed file"
        case .invalidZBase32Character(let position):
            return "invalid z-base-32 character at position \(position)"
        case .nonCanonicalZBase32:
            return "z-base-32 text has an impossible length or non-zero padding bits"
        case .invalidPublicKeyLength(let count):
            return "a pubky must decode to 32 bytes, got \(count); check for a truncated or mistyped key"
        case .unrecognizedPubkyForm:
            return "not a pubky: expected 52 z-base-32 characters, pk:<key>, or a URL whose last host label is the key"
        case .invalidEd25519PublicKey:
            return "the pubky is not a valid ed25519 public key; check for a mistyped character"
        }
    }
}
