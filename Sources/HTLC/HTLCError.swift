import Bitcoin

/// Everything the HTLC module refuses, as cases a caller can act on.
///
/// Messages name amounts, heights and counts, never secret bytes (preimages, private keys)
/// and never bytes a peer sent, so an error can go to a log or a user as it is.
public enum HTLCError: Error, Equatable, Sendable, CustomStringConvertible {
    // Contract terms
    /// A payment hash is the 32-byte SHA-256 of the preimage.
    case invalidPaymentHash(byteCount: Int)
    /// CHECKLOCKTIMEVERIFY reads values below 500,000,000 as block heights; the timeout
    /// must be one, and above zero.
    case invalidTimeoutHeight(UInt32)
    /// The two parties' keys give a MuSig2 aggregate that is not a usable point.
    case invalidKeys(String)
    /// A contract type name that is neither `taproot_boltz` nor `p2wsh_v2` (nor the
    /// retired `p2wsh`).
    case unknownContractType(String)
    /// A retired contract type asked for a new swap (`p2wsh`: its claim branch does not
    /// check the preimage's size).
    case retiredContractType(String)
    /// Leaves or an address received from the provider differ from the contract computed
    /// from the agreed terms.
    case contractMismatch(String)

    // Lock verification
    /// No output of the lock transaction pays the contract.
    case lockOutputMissing
    /// The output named as the lock pays some other script.
    case lockScriptMismatch(outputIndex: Int)
    /// The lock holds less than was agreed.
    case lockAmountShort(expected: Int64, actual: Int64)
    /// Fewer blocks are left before the timeout than the policy requires.
    case timeoutTooClose(blocksLeft: Int, required: Int)
    /// The timeout is not where the agreed `htlc_timeout_blocks` puts it.
    case timeoutOutsideWindow(timeout: UInt32, expected: UInt32, tolerance: Int)
    /// The provider's hold-invoice HTLC expires too soon after the swap timeout.
    case htlcExpiryTooEarly(expiry: UInt32, required: UInt32)
    /// `htlc_timeout_blocks` beyond what the policy allows.
    case htlcTimeoutBlocksOutOfRange(Int, maximum: Int)

    // Spending
    /// A preimage is 32 bytes (the Lightning preimage size the claim leaf enforces).
    case invalidPreimageLength(Int)
    /// The preimage does not hash to the contract's payment hash.
    case preimageMismatch
    /// The private key given is not the contract's claim (or refund) key.
    case keyMismatch(role: String)
    /// The destination is a script type the claim and refund builders do not pay.
    case unsupportedDestination
    /// The output would be below the destination's dust limit, so no node would relay it.
    case amountBelowDust(amount: Int64, dustLimit: Int64)
    /// The amount to pay is more than the lock holds.
    case amountExceedsLock(amount: Int64, lockValue: Int64)
    /// The fee would exceed the cap (a share of the lock value).
    case feeAboveCap(fee: Int64, cap: Int64)
    /// A contact payment keeps X exact until the timeout is near: this fee rate needs
    /// `requiredFee` but only `availableFee` is left above X, with `blocksLeft` to go.
    case feeBumpNeedsLowerAmount(requiredFee: Int64, availableFee: Int64, blocksLeft: Int, allowedWithin: Int)
    /// A fee rate below zero or absurdly high.
    case invalidFeeRate(satPerKvB: Int64)

    // Preimage extraction
    /// The witness holds no item that hashes to the payment hash.
    case noPreimageInWitness
    /// The witness spends the refund path, which reveals no preimage.
    case witnessIsRefund
    /// No input of the transaction spends the lock outpoint.
    case lockNotSpent

    // Secrets
    /// The node seed is 32 bytes.
    case invalidSeedLength(Int)
    /// Swap indexes are hardened BIP32 indexes, below 2^31.
    case swapIndexOutOfRange(UInt32)

    /// A lower-level failure from the Bitcoin module (its messages carry no secrets).
    case bitcoin(BitcoinError)

    public var description: String {
        switch self {
        case .invalidPaymentHash(let count):
            return "a payment hash is 32 bytes, got \(count)"
        case .invalidTimeoutHeight(let height):
            return "timeout \(height) is not a block height (1 to 499999999)"
        case .invalidKeys(let why):
            return "the claim and refund keys cannot form a contract: \(why)"
        case .unknownContractType:
            // The name came from a peer: not echoed.
            return "unknown contract type; expected taproot_boltz or p2wsh_v2"
        case .retiredContractType(let name):
            return "contract type \(name) is retired: its claim branch does not check the preimage's size, "
                + "so a claim could take the lock without paying; use p2wsh_v2 (or taproot_boltz)"
        case .contractMismatch(let what):
            return "the provider's \(what) does not match the contract computed from the agreed terms"
        case .lockOutputMissing:
            return "the lock transaction has no output paying the swap contract"
        case .lockScriptMismatch(let index):
            return "lock output \(index) does not pay the swap contract"
        case .lockAmountShort(let expected, let actual):
            return "the lock holds \(actual) sat, less than the agreed \(expected) sat"
        case .timeoutTooClose(let left, let required):
            return "only \(left) blocks are left before the swap timeout; the policy needs \(required)"
        case .timeoutOutsideWindow(let timeout, let expected, let tolerance):
            return "swap timeout at block \(timeout) is not within \(tolerance) blocks of the expected \(expected)"
        case .htlcExpiryTooEarly(let expiry, let required):
            return "the Lightning HTLC expires at block \(expiry); locking needs at least \(required)"
        case .htlcTimeoutBlocksOutOfRange(let value, let maximum):
            return "htlc_timeout_blocks \(value) is outside 1...\(maximum)"
        case .invalidPreimageLength(let count):
            return "a preimage is 32 bytes, got \(count)"
        case .preimageMismatch:
            return "the preimage does not hash to the swap's payment hash"
        case .keyMismatch(let role):
            return "the private key given is not the contract's \(role) key"
        case .unsupportedDestination:
            return "the destination must be a P2PKH, P2SH, P2WPKH, P2WSH or P2TR address"
        case .amountBelowDust(let amount, let dust):
            return "\(amount) sat is below the destination's dust limit of \(dust) sat"
        case .amountExceedsLock(let amount, let lockValue):
            return "\(amount) sat is more than the lock's \(lockValue) sat"
        case .feeAboveCap(let fee, let cap):
            return "a fee of \(fee) sat is above the cap of \(cap) sat"
        case .feeBumpNeedsLowerAmount(let required, let available, let left, let within):
            return "this fee rate needs \(required) sat but \(available) sat is left above the exact amount; "
                + "a contact payment may lower its amount only within \(within) blocks of the timeout (\(left) left)"
        case .invalidFeeRate(let rate):
            return "fee rate \(rate) sat/kvB is out of range"
        case .noPreimageInWitness:
            return "the witness holds no preimage of the payment hash"
        case .witnessIsRefund:
            return "the witness spends the refund path, which reveals no preimage"
        case .lockNotSpent:
            return "no input of the transaction spends the lock output"
        case .invalidSeedLength(let count):
            return "the node seed is 32 bytes, got \(count)"
        case .swapIndexOutOfRange(let index):
            return "swap index \(index) is not below 2^31"
        case .bitcoin(let error):
            return error.description
        }
    }
}

extension HTLCError {
    /// Runs `body`, turning a Bitcoin-module error into `.bitcoin`.
    static func wrapping<T>(_ body: () throws -> T) throws(HTLCError) -> T {
        do {
            return try body()
        } catch let error as HTLCError {
            throw error
        } catch let error as BitcoinError {
            throw .bitcoin(error)
        } catch {
            throw .bitcoin(.invalidTransaction("\(error)"))
        }
    }
}
