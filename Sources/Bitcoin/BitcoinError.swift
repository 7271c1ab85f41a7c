/// Every failure the `Bitcoin` module reports. Messages say what was wrong and,
/// where it helps, what to do; they never echo key material.
public enum BitcoinError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Input ended before a complete value could be read.
    case truncated(what: String)
    /// Bytes were left over after a complete value was read.
    case trailingBytes(what: String, count: Int)
    /// A string was not valid hexadecimal.
    case invalidHex
    /// A private key, public key or tweak was rejected.
    case invalidKey(String)
    /// A signature could not be parsed, produced or checked.
    case invalidSignature(String)
    /// A script could not be built or parsed.
    case invalidScript(String)
    /// A transaction could not be decoded or is malformed.
    case invalidTransaction(String)
    /// A sighash could not be computed for the given inputs.
    case invalidSighash(String)
    /// An address string or a scriptPubKey with no address form.
    case invalidAddress(String)
    /// A BIP32 extended key or derivation step was rejected.
    case invalidExtendedKey(String)
    /// A MuSig2 (BIP327) input was rejected; the reason names the culprit signer.
    case musig2(MuSig2Error)
    /// Bitcoin Core's kernel library could not be loaded or used.
    case kernelUnavailable(String)
    /// A kernel call returned an error status (not a script verdict).
    case kernelCallFailed(function: String, status: Int)

    public var description: String {
        switch self {
        case .truncated(let what): return "truncated \(what)"
        case .trailingBytes(let what, let count): return "\(count) unexpected trailing bytes after \(what)"
        case .invalidHex: return "invalid hexadecimal string"
        case .invalidKey(let why): return "invalid key: \(why)"
        case .invalidSignature(let why): return "invalid signature: \(why)"
        case .invalidScript(let why): return "invalid script: \(why)"
        case .invalidTransaction(let why): return "invalid transaction: \(why)"
        case .invalidSighash(let why): return "cannot compute sighash: \(why)"
        case .invalidAddress(let why): return "invalid address: \(why)"
        case .invalidExtendedKey(let why): return "invalid extended key: \(why)"
        case .musig2(let why): return "MuSig2: \(why)"
        case .kernelUnavailable(let why): return "Bitcoin Core kernel unavailable: \(why)"
        case .kernelCallFailed(let function, let status): return "\(function) failed with status \(status)"
        }
    }
}
