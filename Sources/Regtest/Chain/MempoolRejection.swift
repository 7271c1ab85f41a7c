import Bitcoin

/// A transaction the mempool refuses, carrying what Core reports for it: the reject
/// reason (`non-final`, `min relay fee not met`, ...), the debug detail (`0 < 11`), and how
/// `sendrawtransaction` and `testmempoolaccept` present it.
public struct MempoolRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which of Core's result classes the refusal belongs to; it selects the RPC error code.
    public enum Kind: Equatable, Sendable {
        /// An input is missing or already spent by a block (TX_MISSING_INPUTS).
        case missingInputs
        /// The transaction's outputs are already in the UTXO set: it is confirmed.
        case alreadyInUTXOSet
        /// A consensus or policy rule (every other reason).
        case rejected
        /// The fee is above the caller's `maxfeerate`.
        case maxFeeExceeded
    }

    public let kind: Kind
    /// Core's reject reason, e.g. `insufficient fee`.
    public let reason: String
    /// Core's debug message, e.g. `rejecting replacement <txid>, less fees than conflicting txs; 0.00005 < 0.0001`.
    public let details: String?

    public init(_ kind: Kind = .rejected, reason: String, details: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.details = details
    }

    /// Core's `ValidationState::ToString()`: the reason, then `, ` and the details when present.
    public var message: String { details.map { "\(reason), \($0)" } ?? reason }

    /// The JSON-RPC error code `sendrawtransaction` answers with: -25 (RPC_TRANSACTION_ERROR)
    /// for missing inputs and an exceeded fee cap, -27 (RPC_VERIFY_ALREADY_IN_UTXO_SET) for a
    /// confirmed transaction, -26 (RPC_TRANSACTION_REJECTED) for every rule violation.
    public var sendRawTransactionCode: Int {
        switch kind {
        case .missingInputs, .maxFeeExceeded: return -25
        case .alreadyInUTXOSet: return -27
        case .rejected: return -26
        }
    }

    /// The error message `sendrawtransaction` answers with.
    public var sendRawTransactionMessage: String {
        switch kind {
        case .missingInputs: return "bad-txns-inputs-missingorspent"
        case .alreadyInUTXOSet: return "Transaction outputs already in utxo set"
        case .maxFeeExceeded: return "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)"
        case .rejected: return message
        }
    }

    /// `testmempoolaccept`'s `reject-reason`.
    public var testAcceptReason: String {
        switch kind {
        case .missingInputs: return "missing-inputs"
        case .alreadyInUTXOSet: return "txn-already-known"
        case .maxFeeExceeded: return "max-fee-exceeded"
        case .rejected: return reason
        }
    }

    /// `testmempoolaccept`'s `reject-details`; Core leaves it out for missing inputs and an
    /// exceeded fee cap.
    public var testAcceptDetails: String? {
        switch kind {
        case .missingInputs, .maxFeeExceeded: return nil
        case .alreadyInUTXOSet: return "txn-already-known"
        case .rejected: return message
        }
    }

    public var description: String { message }

    static let missingInputs = MempoolRejection(.missingInputs, reason: "bad-txns-inputs-missingorspent")
}
