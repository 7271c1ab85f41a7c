import Bitcoin

/// Why a cooperative (MuSig2 key-path) claim or refund step refused. Each refusal leaves
/// nothing changed: the spender then takes the script path, the co-signer answers a Reject.
/// Messages name counts and heights, never the bytes a peer sent or a secret.
public enum CoopSpendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Only `taproot_boltz` has a key path; a P2WSH contract is claimed by its script.
    case noKeyPath
    /// The private key given is not the contract's `role` key ("claim" or "refund")
    /// exactly, as KeyAgg uses the full compressed key.
    case keyMismatch(role: String)
    /// A co-signer set up for one kind of spend was asked to check the other.
    case wrongKind(expected: CoopSpendKind)
    /// The spend must have exactly one input.
    case inputCount(Int)
    /// The one input spends something other than the swap's lock.
    case spendsAnotherOutpoint
    /// A spend has at least one output, and at most `maximum`.
    case outputCount(Int, maximum: Int)
    /// The outputs pay more than the lock holds (a negative fee), or an output is negative.
    case outputsExceedLock(outputs: Int64, lockValue: Int64)
    /// The transaction to co-sign already carries a witness or a scriptSig.
    case alreadySigned
    /// Version outside 1...2 (version 3 is TRUC, with its own relay rules).
    case unsupportedVersion(Int32)
    /// nLockTime must be 0 or a block height below the swap's timeout; a time lock or a
    /// later height could hold the spend back past the timeout.
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
    /// The amounts fail the claim policy or the dust limit (dust, fee cap, X): the
    /// script-path fallback could not be built either, so neither is asked for.
    case claim(HTLCError)
    /// A Bitcoin-module step failed (sighash, signing).
    case bitcoin(BitcoinError)

    public var description: String {
        switch self {
        case .noKeyPath: return "the contract has no key path (only taproot_boltz spends cooperatively)"
        case .keyMismatch(let role): return "the private key given is not the contract's \(role) key"
        case .wrongKind(let kind): return "this co-signer signs a cooperative \(kind.rawValue) only"
        case .inputCount(let count): return "a cooperative spend has exactly one input (the lock), this one has \(count)"
        case .spendsAnotherOutpoint: return "the spend's input does not spend the swap's lock"
        case .outputCount(let count, let maximum):
            return "a cooperative spend has 1 to \(maximum) outputs, this one has \(count)"
        case .outputsExceedLock(let outputs, let lockValue):
            return "the spend's outputs pay \(outputs) sat, more than the lock's \(lockValue) sat"
        case .alreadySigned: return "the transaction to co-sign must carry no witness and no scriptSig"
        case .unsupportedVersion(let version): return "transaction version \(version) is not 1 or 2"
        case .lockTimeNotBeforeTimeout(let lockTime, let timeout):
            return "nLockTime \(lockTime) is not 0 or a block height below the swap timeout \(timeout)"
        case .preimageMismatch: return "the preimage does not hash to the swap's payment hash"
        case .partialSignatureInvalid: return "the partial signature does not verify for this spend, key and nonces"
        case .aggregateSignatureInvalid: return "the aggregate signature does not verify for the lock's output key"
        case .unusableNonce: return "the public nonces cannot form a signing session"
        case .revealNotSafe(let why): return "the preimage may not be revealed for cooperation: \(why)"
        case .claim(let error): return error.description
        case .bitcoin(let error): return error.description
        }
    }
}

extension CoopSpendError {
    /// Runs `body`, turning a Bitcoin-module error into `.bitcoin`.
    static func wrapping<T: ~Copyable>(_ body: () throws -> T) throws(CoopSpendError) -> T {
        do {
            return try body()
        } catch let error as CoopSpendError {
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
