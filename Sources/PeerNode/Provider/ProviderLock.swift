import Bitcoin
import HTLC
import Offers
import Transport

/// The provider's lock transaction as recorded in the `funding_intent` event: signed and
/// complete before it is broadcast, so a restarted node re-publishes these exact bytes
/// (same txid) and can never fund the same swap twice.
public struct ProviderLock: Sendable, Hashable {
    public let transaction: Transaction
    /// The output paying the contract.
    public let outputIndex: UInt32
    /// What the lock transaction pays in fees (sat).
    public let fee: Int64
    /// The tip when it was built: a restarted node rescans the chain from here to find
    /// spends of the lock it missed while down.
    public let height: UInt32
    /// The held HTLC's expiry height E, carried into every locked state (audit H-4): the
    /// refund must be deep before LND gives the payment back at E − 12. Nil in records
    /// written before it was kept.
    public let htlcExpiry: UInt32?
    /// The tip at which the Lightning node was first seen to have cancelled the client's
    /// HTLC while this lock was open (audit H-4/M-7): the payment went back, so nothing can
    /// be settled any more and the lock must come back by the refund. Nil while the HTLC
    /// is held.
    public let htlcCancelledHeight: UInt32?

    public init(transaction: Transaction, outputIndex: UInt32, fee: Int64, height: UInt32, htlcExpiry: UInt32? = nil,
                htlcCancelledHeight: UInt32? = nil) {
        self.transaction = transaction
        self.outputIndex = outputIndex
        self.fee = fee
        self.height = height
        self.htlcExpiry = htlcExpiry
        self.htlcCancelledHeight = htlcCancelledHeight
    }

    /// The same lock, knowing the HTLC's expiry.
    public func with(htlcExpiry: UInt32) -> ProviderLock {
        ProviderLock(transaction: transaction, outputIndex: outputIndex, fee: fee, height: height, htlcExpiry: htlcExpiry,
                     htlcCancelledHeight: htlcCancelledHeight)
    }

    /// The same lock, its HTLC seen cancelled at `height`.
    public func withHTLCCancelled(at height: UInt32) -> ProviderLock {
        ProviderLock(transaction: transaction, outputIndex: outputIndex, fee: fee, height: self.height, htlcExpiry: htlcExpiry,
                     htlcCancelledHeight: height)
    }

    public var txid: TransactionID { transaction.txid }
    public var outPoint: OutPoint { OutPoint(txid: txid, index: outputIndex) }
    /// The lock as a claim or refund spends it.
    public var output: LockOutput { LockOutput(outPoint: outPoint, value: transaction.outputs[Int(outputIndex)].value) }
    /// `lock_txid` (display hex) and `lock_vout` for status messages.
    public var reference: LockReference { LockReference(txid: txid.hex, vout: outputIndex) }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "tx": .string(transaction.serialized.hex),
            "vout": .integer(outputIndex),
            "fee_sat": .integer(fee),
            "height": .integer(height),
        ]
        if let htlcExpiry { members["htlc_expiry"] = .integer(htlcExpiry) }
        if let htlcCancelledHeight { members["htlc_cancelled_height"] = .integer(htlcCancelledHeight) }
        return .object(members)
    }

    init(json: JSONValue) throws(ProviderError) {
        guard let hex = json["tx"]?.stringValue, let bytes = [UInt8](hex: hex),
              let transaction = try? Transaction(bytes: bytes),
              let vout = json["vout"]?.uint64Value, vout < UInt64(transaction.outputs.count),
              let fee = json["fee_sat"]?.int64Value,
              let height = json["height"]?.uint64Value, height <= UInt64(UInt32.max) else {
            throw .corruptRecord("lock transaction")
        }
        var expiry: UInt32?
        if let value = json["htlc_expiry"] {
            guard let number = value.uint64Value, number <= UInt64(UInt32.max) else { throw .corruptRecord("lock's HTLC expiry") }
            expiry = UInt32(number)
        }
        var cancelled: UInt32?
        if let value = json["htlc_cancelled_height"] {
            guard let number = value.uint64Value, number <= UInt64(UInt32.max) else {
                throw .corruptRecord("lock's HTLC cancel height")
            }
            cancelled = UInt32(number)
        }
        self.init(transaction: transaction, outputIndex: UInt32(vout), fee: fee, height: UInt32(height), htlcExpiry: expiry,
                  htlcCancelledHeight: cancelled)
    }
}

/// A signed refund as recorded in `refund_intent` before it is broadcast, with the rate it
/// pays (the next bump starts above it) and where it pays (every bump pays the same
/// address, so replacements never scatter the refund over fresh addresses).
public struct ProviderRefund: Sendable, Hashable {
    public let transaction: Transaction
    public let feeRate: FeeRate
    public let fee: Int64
    public let destination: Script

    public init(transaction: Transaction, feeRate: FeeRate, fee: Int64, destination: Script) {
        self.transaction = transaction
        self.feeRate = feeRate
        self.fee = fee
        self.destination = destination
    }

    public var txid: TransactionID { transaction.txid }

    /// A refund found on chain spending `lock` (one output back to our wallet): its fee and
    /// rate read from the transaction itself. Nil for any other shape.
    init?(spending lock: ProviderLock, by transaction: Transaction) {
        guard transaction.inputs.count == 1, transaction.inputs[0].previousOutput == lock.outPoint,
              transaction.outputs.count == 1 else { return nil }
        let fee = lock.output.value - transaction.outputs[0].value
        guard fee > 0, let rate = try? FeeRate(satPerKvB: fee * 1_000 / Int64(max(1, transaction.virtualSize))) else { return nil }
        self.init(transaction: transaction, feeRate: rate, fee: fee, destination: transaction.outputs[0].scriptPubKey)
    }

    var json: JSONValue {
        .object([
            "tx": .string(transaction.serialized.hex),
            "fee_rate_sat_kvb": .integer(feeRate.satPerKvB),
            "fee_sat": .integer(fee),
            "destination": .string(destination.bytes.hex),
        ])
    }

    init(json: JSONValue) throws(ProviderError) {
        guard let hex = json["tx"]?.stringValue, let bytes = [UInt8](hex: hex),
              let transaction = try? Transaction(bytes: bytes),
              let rateValue = json["fee_rate_sat_kvb"]?.int64Value, let rate = try? FeeRate(satPerKvB: rateValue),
              let fee = json["fee_sat"]?.int64Value,
              let scriptHex = json["destination"]?.stringValue, let script = [UInt8](hex: scriptHex) else {
            throw .corruptRecord("refund transaction")
        }
        self.init(transaction: transaction, feeRate: rate, fee: fee, destination: Script(bytes: script))
    }
}
