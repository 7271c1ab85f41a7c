/// Why a BIP327 (MuSig2) step refused its input. Like BIP327's own errors, a bad
/// contribution names the signer it came from (its index in the list the caller passed),
/// so that a session can blame and drop that party rather than retry blindly.
public enum MuSig2Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// What an `invalidContribution` was: BIP327's `contrib` names.
    public enum Contribution: String, Sendable, Equatable {
        case publicKey = "pubkey"
        case publicNonce = "pubnonce"
        case aggregateNonce = "aggnonce"
        case aggregateOtherNonce = "aggothernonce"
        case partialSignature = "psig"
    }

    /// A party sent something that is not what BIP327 requires. `signer` is its index in the
    /// list given to the step, or nil when the value is not one signer's (an aggregate nonce).
    case invalidContribution(signer: Int?, Contribution)
    /// KeyAgg was given no keys.
    case noPublicKeys
    /// The weighted sum of the keys is the point at infinity.
    case aggregateKeyIsInfinity
    /// ApplyTweak: "The tweak must be less than n."
    case tweakOutOfRange
    /// ApplyTweak: "The result of tweaking cannot be infinity."
    case tweakResultIsInfinity
    /// Sign: "The signer's pubkey must be included in the list of pubkeys."
    case signerNotInKeyList
    /// Sign: the first (1) or second (2) secret nonce value is 0 or not below n, which is
    /// what a secret nonce that was already used (and erased) looks like.
    case secretNonceOutOfRange(part: Int)
    /// Sign: "Public key does not match nonce_gen argument": the secret nonce was made for
    /// another signer's key.
    case secretNonceForAnotherKey
    /// An input of a fixed size had another size.
    case invalidLength(what: String, expected: Int, got: Int)
    /// NonceGen drew a zero nonce (probability about 2^-256; a fresh call draws again).
    case nonceGenerationFailed

    public var description: String {
        switch self {
        case .invalidContribution(let signer?, let what):
            return "signer \(signer) sent an invalid \(what.rawValue): leave that signer out of the session"
        case .invalidContribution(nil, let what):
            return "the \(what.rawValue) is invalid: someone in the session sent a bad value"
        case .noPublicKeys: return "key aggregation needs at least one public key"
        case .aggregateKeyIsInfinity: return "the aggregate public key is the point at infinity"
        case .tweakOutOfRange: return "the tweak must be less than the curve order n"
        case .tweakResultIsInfinity: return "the result of tweaking is the point at infinity"
        case .signerNotInKeyList: return "the signer's public key is not in the session's list of public keys"
        case .secretNonceOutOfRange(let part):
            return "secret nonce value \(part) is out of range (was this nonce already used?): start a new nonce round"
        case .secretNonceForAnotherKey: return "the secret nonce was generated for another public key"
        case .invalidLength(let what, let expected, let got): return "\(what) is \(expected) bytes, got \(got)"
        case .nonceGenerationFailed: return "nonce generation produced a zero nonce: generate again"
        }
    }
}
