import Bitcoin

/// What both sides agree on before a lock exists; the contract is a pure function of it.
///
/// In a reverse swap the client makes the preimage and its claim key (from its seed) and
/// the provider brings its refund key; in a submarine swap the payee's invoice brings the
/// hash, the provider the claim key and the client the refund key (`roles`). Either way the
/// provider picks the timeout height.
public struct SwapTerms: Sendable, Hashable {
    /// Largest value CHECKLOCKTIMEVERIFY reads as a block height (500,000,000 and up are times).
    public static let maximumTimeoutHeight: UInt32 = 499_999_999

    public let network: Network
    /// SHA-256 of the 32-byte preimage: the Lightning payment hash.
    public let paymentHash: [UInt8]
    /// The key that claims with the preimage: the client's in a reverse swap, the
    /// provider's in a submarine one.
    public let claimPublicKey: PublicKey
    /// The key that refunds after the timeout: the provider's in a reverse swap, the
    /// client's in a submarine one.
    public let refundPublicKey: PublicKey
    /// The block height from which the provider may refund.
    public let timeoutHeight: UInt32
    /// Which party holds the claim key and which the refund key.
    public let roles: ContractRoles

    public init(network: Network, paymentHash: [UInt8], claimPublicKey: PublicKey, refundPublicKey: PublicKey,
                timeoutHeight: UInt32, roles: ContractRoles = .reverse) throws {
        guard paymentHash.count == 32 else { throw HTLCError.invalidPaymentHash(byteCount: paymentHash.count) }
        guard timeoutHeight > 0, timeoutHeight <= Self.maximumTimeoutHeight else {
            throw HTLCError.invalidTimeoutHeight(timeoutHeight)
        }
        self.network = network
        self.paymentHash = paymentHash
        self.claimPublicKey = claimPublicKey
        self.refundPublicKey = refundPublicKey
        self.timeoutHeight = timeoutHeight
        self.roles = roles
    }

    /// The provider's key: the refund key of a reverse swap, the claim key of a submarine one.
    public var providerPublicKey: PublicKey { roles.claimer == .provider ? claimPublicKey : refundPublicKey }
    /// The client's key: the claim key of a reverse swap, the refund key of a submarine one.
    public var clientPublicKey: PublicKey { roles.claimer == .client ? claimPublicKey : refundPublicKey }

    /// The timeout as the script pushes it: a minimal CScriptNum (so 123 is `01 7b`).
    var timeoutPush: Opcode { .pushNumber(Int64(timeoutHeight)) }
}
