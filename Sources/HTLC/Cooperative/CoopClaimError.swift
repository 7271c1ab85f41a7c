import Bitcoin

/// Why a cooperative (MuSig2 key-path) claim step refused. Each refusal leaves nothing
/// changed: the client then claims through the script path, the provider answers a Reject.
/// Messages name counts and heights, never the bytes a peer sent or a secret.
public enum CoopClaimError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Only `taproot_boltz` has a key path; a P2WSH contract is claimed by its script.
    case noKeyPath
    /// The contract is not a reverse swap's (the client claims only in `ln_to_onchain`).
    case notReverseSwap
    /// The private key given is not the party's key in the contract (exactly, as KeyAgg
    /// uses the full compressed key).
    case keyMismatch(role: String)
    /// The claim must have exactly one input.
    case inputCount(Int)
    /// The one input spends something other than the swap's lock.
    case spendsAnotherOutpoint
    /// A claim has at least one output, and at most `maximum`.
    case outputCount(Int, maximum: Int)
    /// The outputs pay more than the lock holds (a negative fee), or an output is negative.
    case outputsExceedLock(outputs: Int64, lockValue: Int64)
    /// The transaction to co-sign already carries a witness or a scriptSig.
    case alreadySigned
    /// Version outside 1...2 (version 3 is TRUC, with its own relay rules).
    case unsupportedVersion(Int32)
    /// nLockTime must be 0 or a block height below the swap's timeout; a time lock or a
    /// later height could hold the claim back past the provider's refund.
    case lockTimeNotBeforeTimeout(lockTime: UInt32, timeoutHeight: UInt32)
    /// The preimage is not 32 bytes or does not hash to the payment hash.
    case preimageMismatch
    /// The other party's partial signature does not verify for this session (another
    /// message, another key, another nonce, or tampered).
    case partialSignatureInvalid
    /// The aggregate is not a valid BIP340 signature for the lock's output key.
    case aggregateSignatureInvalid
    /// The other party's public nonce makes the aggregate nonce unusable.
    case unusableNonce
    /// The preimage may not be revealed for cooperation now (`CoopRevealRule`).
    case revealNotSafe(String)
    /// The claim's amounts fail the claim policy (dust, fee cap, X): the script-path
    /// fallback could not be built either, so neither is asked for.
    case claim(HTLCError)
    /// A Bitcoin-module step failed (sighash, signing).
    case bitcoin(BitcoinError)

    public var description: String {
        switch self {
        case .noKeyPath: return "the contract has no key path (only taproot_boltz claims cooperatively)"
        case .notReverseSwap: return "cooperative claims are for reverse (ln_to_onchain) swaps, where the client claims"
        case .keyMismatch(let role): return "the private key given is not the contract's \(role) key"
        case .inputCount(let count): return "a cooperative claim has exactly one input (the lock), this one has \(count)"
        case .spendsAnotherOutpoint: return "the claim's input does not spend the swap's lock"
        case .outputCount(let count, let maximum):
            return "a cooperative claim has 1 to \(maximum) outputs, this one has \(count)"
        case .outputsExceedLock(let outputs, let lockValue):
            return "the claim's outputs pay \(outputs) sat, more than the lock's \(lockValue) sat"
        case .alreadySigned: return "the claim to co-sign must carry no witness and no scriptSig"
        case .unsupportedVersion(let version): return "transaction version \(version) is not 1 or 2"
        case .lockTimeNotBeforeTimeout(let lockTime, let timeout):
            return "nLockTime \(lockTime) is not 0 or a block height below the swap timeout \(timeout)"
        case .preimageMismatch: return "the preimage does not hash to the swap's payment hash"
        case .partialSignatureInvalid: return "the partial signature does not verify for this claim, key and nonces"
        case .aggregateSignatureInvalid: return "the aggregate signature does not verify for the lock's output key"
        case .unusableNonce: return "the public nonces cannot form a signing session"
        case .revealNotSafe(let why): return "the preimage may not be revealed for cooperation: \(why)"
        case .claim(let error): return error.description
        case .bitcoin(let error): return error.description
        }
    }
}

extension CoopClaimError {
    /// Runs `body`, turning a Bitcoin-module error into `.bitcoin`.
    static func wrapping<T: ~Copyable>(_ body: () throws -> T) throws(CoopClaimError) -> T {
        do {
            return try body()
        } catch let error as CoopClaimError {
            throw error
        } catch let error as BitcoinError {
            throw .bitcoin(error)
        } catch let error as HTLCError {
            throw .claim(error)
        } catch {
            throw .bitcoin(.invalidTransaction("\(error)"))
        }
    }
}
