import Bitcoin

/// A BOLT11 payment request as the node decodes it (LND `DecodePayReq`).
public struct PaymentRequestDetails: Sendable, Hashable {
    /// The payee's node key.
    public var destination: PublicKey
    public var paymentHash: [UInt8]
    /// 0 for an any-amount invoice.
    public var amountMsat: UInt64
    /// Seconds since 1970 when it was made.
    public var timestamp: UInt64
    public var expirySeconds: UInt64
    public var description: String
    /// The final CLTV delta the payee asks for.
    public var cltvExpiry: UInt64
    /// The payment secret (`s`).
    public var paymentAddress: [UInt8]

    public init(destination: PublicKey, paymentHash: [UInt8], amountMsat: UInt64, timestamp: UInt64,
                expirySeconds: UInt64, description: String, cltvExpiry: UInt64, paymentAddress: [UInt8]) {
        self.destination = destination
        self.paymentHash = paymentHash
        self.amountMsat = amountMsat
        self.timestamp = timestamp
        self.expirySeconds = expirySeconds
        self.description = description
        self.cltvExpiry = cltvExpiry
        self.paymentAddress = paymentAddress
    }

    /// When it expires, in seconds since 1970 (saturating).
    public var expiresAt: UInt64 {
        let (sum, overflow) = timestamp.addingReportingOverflow(expirySeconds)
        return overflow ? .max : sum
    }
}
