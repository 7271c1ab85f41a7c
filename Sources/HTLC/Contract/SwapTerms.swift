import Bitcoin

/// What both sides agree on before a lock exists; the contract is a pure function of it.
///
/// The client makes the preimage and its claim key (from its seed); the provider brings
/// its refund key and picks the timeout height.
public struct SwapTerms: Sendable, Hashable {
    /// Largest value CHECKLOCKTIMEVERIFY reads as a block height (500,000,000 and up are times).
    public static let maximumTimeoutHeight: UInt32 = 499_999_999

    public let network: Network
    /// SHA-256 of the 32-byte preimage: the Lightning payment hash.
    public let paymentHash: [UInt8]
    /// The client's key: it claims with the preimage.
    public let claimPublicKey: PublicKey
    /// The provider's key: it refunds after the timeout.
    public let refundPublicKey: PublicKey
    /// The block height from which the provider may refund.
    public let timeoutHeight: UInt32

    public init(network: Network, paymentHash: [UInt8], claimPublicKey: PublicKey, refundPublicKey: PublicKey,
                timeoutHeight: UInt32) throws {
        guard paymentHash.count == 32 else { throw HTLCError.invalidPaymentHash(byteCount: paymentHash.count) }
        guard timeoutHeight > 0, timeoutHeight <= Self.maximumTimeoutHeight else {
            throw HTLCError.invalidTimeoutHeight(timeoutHeight)
        }
        self.network = network
        self.paymentHash = paymentHash
        self.claimPublicKey = claimPublicKey
        self.refundPublicKey = refundPublicKey
        self.timeoutHeight = timeoutHeight
    }

    /// The timeout as the script pushes it: a minimal CScriptNum (so 123 is `01 7b`).
    var timeoutPush: Opcode { .pushNumber(Int64(timeoutHeight)) }
}
