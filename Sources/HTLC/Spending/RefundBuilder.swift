import Bitcoin

/// What a refund needs besides the provider's key.
public struct RefundRequest: Sendable, Hashable {
    public var contract: SwapContract
    public var lock: LockOutput
    /// The provider's wallet address.
    public var destination: Address
    public var feeRate: FeeRate

    public init(contract: SwapContract, lock: LockOutput, destination: Address, feeRate: FeeRate) {
        self.contract = contract
        self.lock = lock
        self.destination = destination
        self.feeRate = feeRate
    }
}

/// A signed refund with its fee and size.
public struct SignedRefund: Sendable, Hashable {
    public let transaction: Transaction
    public let fee: Int64
    public let virtualSize: Int
}

/// Builds the provider's refund through the refund leaf (Taproot) or the OP_ELSE branch
/// (P2WSH): nLockTime = timeout height, sequence 0xfffffffd (non-final, so nLockTime and
/// CHECKLOCKTIMEVERIFY apply, and RBF-signalling, so it can be bumped), one output to the
/// provider's address at the given fee rate.
///
/// A refund is valid in a block above the timeout height, so relay it once the tip has
/// reached the timeout.
public enum RefundBuilder {
    public static func build(_ request: RefundRequest, refundKey: PrivateKey) throws -> SignedRefund {
        let terms = request.contract.terms
        try ClaimBuilder.checkKey(refundKey, matches: terms.refundPublicKey, contract: request.contract, role: "refund")
        let destination = try DestinationType(address: request.destination)
        let vsize = SpendSize.refund(contract: request.contract, destination: destination)
        let fee = request.feeRate.fee(forVirtualSize: vsize)
        let output = request.lock.value - fee
        let dust = DustLimit.threshold(for: destination)
        guard output >= dust else { throw HTLCError.amountBelowDust(amount: output, dustLimit: dust) }
        let unsigned = Transaction(
            version: 2,
            inputs: [TransactionInput(previousOutput: request.lock.outPoint, sequence: TransactionInput.replaceableSequence)],
            outputs: [TransactionOutput(value: output, scriptPubKey: request.destination.script)],
            lockTime: terms.timeoutHeight)
        let signed = try SpendSigner.sign(unsigned, contract: request.contract, lockValue: request.lock.value,
                                          path: .refund, key: refundKey)
        return SignedRefund(transaction: signed, fee: fee, virtualSize: vsize)
    }
}
