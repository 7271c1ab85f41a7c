import Transport

/// Why a transaction the client presented as its lock is not the agreed lock. The provider
/// never pays against one; the client gets its coins back by its refund at the timeout.
public enum SubmarineLockMismatch: Error, Sendable, Hashable, CustomStringConvertible {
    /// No output pays the contract's script (another address, another contract type).
    case noOutputPaysTheContract
    /// The contract is paid less than the accept's `total_sat`.
    case amountShort(agreedSat: Int64, lockedSat: Int64)
    /// The contract is paid more than the accept's `total_sat` (and no output pays it exactly).
    case amountOver(agreedSat: Int64, lockedSat: Int64)
    /// The lock is a coinbase output: spendable only 100 blocks after its block, past the
    /// swap's timeout, so a claim would become valid with the client's refund, in the block
    /// a miner chooses.
    case coinbase

    public var description: String {
        switch self {
        case .noOutputPaysTheContract:
            return "the lock pays no output to the accepted contract's address; the provider will not pay the invoice: "
                + "refund it after the timeout"
        case .amountShort(let agreed, let locked):
            return "the lock pays \(locked) sat where \(agreed) sat were agreed; the provider will not pay the invoice: "
                + "refund it after the timeout"
        case .amountOver(let agreed, let locked):
            return "the lock pays \(locked) sat where exactly \(agreed) sat were agreed; the provider will not pay the "
                + "invoice: refund it after the timeout"
        case .coinbase:
            return "the lock is a coinbase output, which cannot be spent for 100 blocks, past the swap's timeout; the "
                + "provider will not pay the invoice: refund it once it has matured"
        }
    }
}

extension SubmarineLockMismatch {
    var json: JSONValue {
        switch self {
        case .noOutputPaysTheContract: return .object(["mismatch": .string("no_output")])
        case .coinbase: return .object(["mismatch": .string("coinbase")])
        case .amountShort(let agreed, let locked):
            return .object(["mismatch": .string("amount_short"), "agreed_sat": .integer(agreed), "locked_sat": .integer(locked)])
        case .amountOver(let agreed, let locked):
            return .object(["mismatch": .string("amount_over"), "agreed_sat": .integer(agreed), "locked_sat": .integer(locked)])
        }
    }

    init(json: JSONValue) throws(ProviderError) {
        let mismatch = json["mismatch"]?.stringValue
        if mismatch == "no_output" { self = .noOutputPaysTheContract; return }
        if mismatch == "coinbase" { self = .coinbase; return }
        guard let agreed = json["agreed_sat"]?.int64Value, let locked = json["locked_sat"]?.int64Value else {
            throw .corruptRecord("lock_mismatch without its amounts")
        }
        switch mismatch {
        case "amount_short": self = .amountShort(agreedSat: agreed, lockedSat: locked)
        case "amount_over": self = .amountOver(agreedSat: agreed, lockedSat: locked)
        default: throw .corruptRecord("lock_mismatch without a known kind")
        }
    }
}
