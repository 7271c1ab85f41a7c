import Bitcoin
import Transport

/// What `SubmarineClientEngine.pay` returns once the invoice is paid: the preimage (the
/// proof of payment, public now), what was locked and what the lock cost.
public struct SubmarineClientReport: Sendable, Equatable {
    public let swapID: String
    /// The invoice amount the provider paid.
    public let amountSat: Int64
    public let serviceFeeSat: Int64
    /// The provider's claim fee, as quoted.
    public let providerOnchainFeeSat: Int64
    /// What the lock holds: the quote's `total_sat`.
    public let lockTotalSat: Int64
    /// What the lock transaction paid in fees, from the wallet.
    public let lockFeeSat: Int64
    public let lockTxid: TransactionID
    public let paymentHash: [UInt8]
    /// SHA-256(preimage) = payment hash: the proof the invoice was paid.
    public let preimage: [UInt8]
    /// Where it was learned: `claim`, `settled_invoice` or `provider_status`.
    public let preimageSource: String

    public init(swapID: String, amountSat: Int64, serviceFeeSat: Int64, providerOnchainFeeSat: Int64, lockTotalSat: Int64,
                lockFeeSat: Int64, lockTxid: TransactionID, paymentHash: [UInt8], preimage: [UInt8], preimageSource: String) {
        self.swapID = swapID
        self.amountSat = amountSat
        self.serviceFeeSat = serviceFeeSat
        self.providerOnchainFeeSat = providerOnchainFeeSat
        self.lockTotalSat = lockTotalSat
        self.lockFeeSat = lockFeeSat
        self.lockTxid = lockTxid
        self.paymentHash = paymentHash
        self.preimage = preimage
        self.preimageSource = preimageSource
    }

    /// Savings spent: the lock and its fee.
    public var savingsSpentSat: Int64 { lockTotalSat + lockFeeSat }

    public var json: [String: JSONValue] {
        [
            "status": .string("paid"), "route": .string("submarine"), "swap_id": .string(swapID),
            "amount_sat": .integer(amountSat), "service_fee_sat": .integer(serviceFeeSat),
            "provider_onchain_fee_sat": .integer(providerOnchainFeeSat), "lock_total_sat": .integer(lockTotalSat),
            "lock_fee_sat": .integer(lockFeeSat), "savings_spent_sat": .integer(savingsSpentSat),
            "lock_txid": .string(lockTxid.hex), "payment_hash": .string(paymentHash.hex),
            "preimage": .string(preimage.hex), "preimage_source": .string(preimageSource),
        ]
    }
}
