import Bitcoin
import HTLC
import Transport

/// One signed version of the provider's claim of the client's lock (the first, or a fee
/// bump), recorded before it is broadcast so a restarted node sends these exact bytes.
public struct SubmarineClaim: Sendable, Hashable {
    public let transaction: Transaction
    public let feeRate: FeeRate
    public let fee: Int64
    /// The tip when it was built: the cutoff for a first claim is checked against it.
    public let builtAtHeight: UInt32
    /// The tip at which the node first accepted this version: the count of blocks it has
    /// stayed unconfirmed (`ClaimPolicy.bumpDue`). Nil until then (a bump is then due).
    public let acceptedAtHeight: UInt32?

    public init(transaction: Transaction, feeRate: FeeRate, fee: Int64, builtAtHeight: UInt32,
                acceptedAtHeight: UInt32? = nil) {
        self.transaction = transaction
        self.feeRate = feeRate
        self.fee = fee
        self.builtAtHeight = builtAtHeight
        self.acceptedAtHeight = acceptedAtHeight
    }

    public var txid: TransactionID { transaction.txid }

    /// The same version, accepted by the node at `height`.
    public func accepted(at height: UInt32) -> SubmarineClaim {
        SubmarineClaim(transaction: transaction, feeRate: feeRate, fee: fee, builtAtHeight: builtAtHeight,
                       acceptedAtHeight: height)
    }
}

extension SubmarineClaim {
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "tx": .string(transaction.serialized.hex),
            "fee_rate_sat_kvb": .integer(feeRate.satPerKvB),
            "fee_sat": .integer(fee),
            "built_at_height": .integer(builtAtHeight),
        ]
        if let acceptedAtHeight { members["accepted_at_height"] = .integer(acceptedAtHeight) }
        return .object(members)
    }

    init(json: JSONValue) throws(ProviderError) {
        guard let hex = json["tx"]?.stringValue, let bytes = [UInt8](hex: hex),
              let transaction = try? Transaction(bytes: bytes),
              let rateValue = json["fee_rate_sat_kvb"]?.int64Value, let rate = try? FeeRate(satPerKvB: rateValue),
              let fee = json["fee_sat"]?.int64Value,
              let built = json["built_at_height"]?.uint64Value, built <= UInt64(UInt32.max) else {
            throw .corruptRecord("submarine claim")
        }
        var accepted: UInt32?
        if let value = json["accepted_at_height"] {
            guard let height = value.uint64Value, height <= UInt64(UInt32.max) else {
                throw .corruptRecord("submarine claim's accepted height")
            }
            accepted = UInt32(height)
        }
        self.init(transaction: transaction, feeRate: rate, fee: fee, builtAtHeight: UInt32(built), acceptedAtHeight: accepted)
    }
}
